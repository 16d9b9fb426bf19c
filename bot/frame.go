package bot

import (
	"context"
	"fmt"
)

// A stored frame is one state byte followed by the markdown content. The state
// lets a queue-position update replace a frame only while its message is
// still waiting, so it can never overwrite a turn's progress.
const (
	frameWaiting  = 'W'
	frameRunning  = 'R'
	frameFinished = 'F'
)

func encodeFrame(state byte, content string) []byte {
	b := make([]byte, 0, len(content)+1)
	b = append(b, state)
	return append(b, content...)
}

func decodeFrame(streamID string, b []byte) Frame {
	if len(b) == 0 {
		return Frame{StreamID: streamID}
	}
	return Frame{StreamID: streamID, Content: string(b[1:]), Finish: b[0] == frameFinished}
}

// Frame returns the newest frame of a reply stream from the shared store, so
// any replica answers a platform refresh. ok is false for an unknown stream.
func (e *Engine) Frame(ctx context.Context, streamID string) (Frame, bool, error) {
	b, ok, err := e.store.LoadFrame(ctx, streamID)
	if err != nil {
		return Frame{}, false, fmt.Errorf("load frame of stream %s: %w", streamID, err)
	}
	if !ok {
		return Frame{StreamID: streamID}, false, nil
	}
	return decodeFrame(streamID, b), true, nil
}

func (e *Engine) saveFrame(ctx context.Context, streamID string, state byte, content string) (Frame, error) {
	if err := e.store.SaveFrame(ctx, streamID, encodeFrame(state, content)); err != nil {
		return Frame{}, fmt.Errorf("save frame of stream %s: %w", streamID, err)
	}
	return Frame{StreamID: streamID, Content: content, Finish: state == frameFinished}, nil
}

// saveTurnFrame writes a frame of a turn unless the stream is finished: a
// finished frame is the last word, whether the turn's own or the failure
// another replica wrote when this turn's lease lapsed, so a late write from a
// holder that lost its lease can never replace it.
func (e *Engine) saveTurnFrame(ctx context.Context, streamID string, state byte, content string) (bool, error) {
	ok, err := e.store.SaveFrameUnless(ctx, streamID, encodeFrame(state, content), string(rune(frameFinished)))
	if err != nil {
		return false, fmt.Errorf("save frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}

// saveWaiting replaces a waiting frame (queue position) unless the message has
// started meanwhile.
func (e *Engine) saveWaiting(ctx context.Context, streamID, content string) (bool, error) {
	ok, err := e.store.SaveFrameIf(ctx, streamID, encodeFrame(frameWaiting, content), string(rune(frameWaiting)))
	if err != nil {
		return false, fmt.Errorf("save waiting frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}
