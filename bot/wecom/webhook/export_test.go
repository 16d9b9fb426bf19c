package webhook

import (
	"context"
	"time"
)

// SetWindowHook makes window decide when each turn's stream window ends
// instead of a timer. Call it before the engine runs.
func SetWindowHook(c *Channel, window func(streamID string) <-chan time.Time) {
	c.hooks.window = window
}

// SetTurnEndedHook runs f once a turn's end is recorded, before its card gets
// its final status. Call it before the engine runs.
func SetTurnEndedHook(c *Channel, f func(streamID string)) { c.hooks.turnEnded = f }

// SetRestoreHooks make tick decide when each running turn writes its lost
// frame back, instead of a ticker, and call done after each attempt
// (stored: the frame was missing and written). Call it before the engine
// runs.
func SetRestoreHooks(c *Channel, tick func(streamID string) <-chan time.Time, done func(streamID string, stored bool)) {
	c.hooks.restore, c.hooks.restored = tick, done
}

// TextStillWorking is what a refresh of a running stream whose frame is
// lost shows when nothing better is known.
const TextStillWorking = textStillWorking

// FrameOf is a stream's frame whoever owns it, for tests that follow a
// stream without playing WeCom.
func FrameOf(c *Channel, ctx context.Context, streamID string) (Frame, bool, error) {
	s, ok, err := c.loadFrame(ctx, streamID)
	return s.frame(streamID), ok, err
}
