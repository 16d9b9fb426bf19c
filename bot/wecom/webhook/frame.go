package webhook

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/wecodex/wecodex/bot"
)

// A stored frame is one FrameState byte, the stream's owner, then the markdown
// content. The state lets a queue-position update replace a frame only while
// its message is still waiting, so it can never overwrite a turn's progress.
// The owner (see owner) is checked on every platform refresh, so a stream's
// frames are answered only to the conversation, and in a 1:1 chat the user,
// that started it.
//
// Layout: state, frameOwned, uvarint len(owner), owner, content. A frame
// written before owners were recorded has no frameOwned byte; it is answered
// to nobody (it lives FrameTTL, minutes, so only streams running during an
// upgrade are affected).
const (
	frameWaiting  FrameState = 'W'
	frameRunning  FrameState = 'R'
	frameFinished FrameState = 'F'

	frameOwned = 0x01
)

// Frame is the newest state of one reply stream: what WeCom shows for the
// stream id right now. Content is cumulative markdown (each frame replaces
// the previous one). Finish is true once the stream will not change again.
type Frame struct {
	StreamID string
	Content  string
	Finish   bool
}

func encodeFrame(state FrameState, owner, content string) []byte {
	b := make([]byte, 0, 2+binary.MaxVarintLen64+len(owner)+len(content))
	b = append(b, state, frameOwned)
	b = binary.AppendUvarint(b, uint64(len(owner)))
	b = append(b, owner...)
	return append(b, content...)
}

// storedFrame is a decoded stored frame. ok is false for a frame without an
// owner record.
type storedFrame struct {
	state   FrameState
	owner   string
	content string
	ok      bool
}

func decodeFrame(b []byte) storedFrame {
	if len(b) < 2 || b[1] != frameOwned {
		return storedFrame{}
	}
	n, k := binary.Uvarint(b[2:])
	if k <= 0 || n > uint64(len(b)-2-k) {
		return storedFrame{}
	}
	start := 2 + k
	return storedFrame{state: b[0], owner: string(b[start : start+int(n)]), content: string(b[start+int(n):]), ok: true}
}

func (s storedFrame) frame(streamID string) Frame {
	return Frame{StreamID: streamID, Content: s.content, Finish: s.state == frameFinished}
}

// owner names who may see a stream's frames: the conversation, and in a 1:1
// chat also its user (the key already names them; saying it again keeps the
// rule true whatever a channel puts in the key).
func owner(c bot.Conversation, user string) string {
	if c.Group {
		return c.Key()
	}
	return c.Key() + "\x00" + user
}

// Asker is who asks for a stream's newest frame: the conversation and user
// a platform refresh comes from, as the channel parsed them (the same way as
// for a Message).
type Asker struct {
	Conversation bot.Conversation
	User         string
}

// Frame returns the newest frame of a reply stream from the shared store, so
// any replica answers a platform refresh. ok is false for a stream nobody
// knows, and for a stream another conversation or user owns: the asker
// learns nothing of it, not even that it exists.
func (c *Channel) Frame(ctx context.Context, streamID string, from Asker) (Frame, bool, error) {
	s, ok, err := c.loadFrame(ctx, streamID)
	if err != nil || !ok {
		return Frame{StreamID: streamID}, false, err
	}
	if s.owner != owner(from.Conversation, from.User) {
		c.log.Info("refresh of a stream owned by another conversation or user refused", "stream", streamID, "conv", from.Conversation, "user", from.User)
		return Frame{StreamID: streamID}, false, nil
	}
	return s.frame(streamID), true, nil
}

// loadFrame reads a stream's frame for the engine itself; ok is false when
// there is none or it has no owner record.
func (c *Channel) loadFrame(ctx context.Context, streamID string) (storedFrame, bool, error) {
	b, ok, err := c.store.LoadFrame(ctx, streamID)
	if err != nil {
		return storedFrame{}, false, fmt.Errorf("load frame of stream %s: %w", streamID, err)
	}
	if !ok {
		return storedFrame{}, false, nil
	}
	s := decodeFrame(b)
	return s, s.ok, nil
}

// saveTurnFrame writes a frame of a turn unless the stream is finished: a
// finished frame is the last word, whether the turn's own or the failure
// another replica wrote when this turn's lease lapsed, so a late write from a
// holder that lost its lease can never replace it.
func (c *Channel) saveTurnFrame(ctx context.Context, streamID, owner string, state FrameState, content string) (bool, error) {
	ok, err := c.store.SaveFrameUnless(ctx, streamID, encodeFrame(state, owner, content), frameFinished)
	if err != nil {
		return false, fmt.Errorf("save frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}

// saveWaiting replaces a waiting frame (queue position) unless the message has
// started meanwhile.
func (c *Channel) saveWaiting(ctx context.Context, streamID, owner, content string) (bool, error) {
	ok, err := c.store.SaveFrameIf(ctx, streamID, encodeFrame(frameWaiting, owner, content), frameWaiting)
	if err != nil {
		return false, fmt.Errorf("save waiting frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}
