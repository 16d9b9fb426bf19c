package bot

import (
	"context"
	"time"
)

// SetWindowHook makes window decide when each turn's stream window ends
// instead of a timer. Call it before Run.
func SetWindowHook(e *Engine, window func(streamID string) <-chan time.Time) { e.hooks.window = window }

// SetTurnEndedHook runs f once a turn's end is recorded, before its card gets
// its final status. Call it before Run.
func SetTurnEndedHook(e *Engine, f func(streamID string)) { e.hooks.turnEnded = f }

// FrameOf is a stream's frame whoever owns it, for tests that follow a
// stream without playing its platform.
func FrameOf(e *Engine, ctx context.Context, streamID string) (Frame, bool, error) {
	s, ok, err := e.loadFrame(ctx, streamID)
	return s.frame(streamID), ok, err
}

// FrameContent is the markdown of a stored frame.
func FrameContent(b []byte) string { return decodeFrame(b).content }
