package webhook

import (
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
)

// testHooks let the channel's tests force interleavings that timers and
// goroutine scheduling otherwise leave to chance (export_test.go sets them
// before Run). They are nil in production.
type testHooks struct {
	// window returns the channel that fires when the stream window of the
	// turn with this stream id ends, instead of a timer.
	window func(streamID string) <-chan time.Time
	// turnEnded runs once a turn's end is recorded on its card, before the
	// card gets its final status and the publisher closes.
	turnEnded func(streamID string)
	// restore returns the channel whose ticks make the turn with this
	// stream id write its lost frame back, instead of a ticker.
	restore func(streamID string) <-chan time.Time
	// restored runs after each write-back attempt; stored says whether
	// the frame was missing and written.
	restored func(streamID string, stored bool)
}

// watchWindow finishes the turn's stream when the platform's stream window
// ends while the turn still runs: the platform stops refreshing a fixed
// time after the user's message, however long it waited in the queue. stop
// ends the watch; it must be called once.
//
// The window's end and the turn's end are ordered under the card's lock
// (stream.closeWindow, stream.end), so a window that ends as the turn ends
// either finishes the stream before the turn's last frame or not at all:
// never a "the rest follows" note with nothing left to follow.
func (c *Channel) watchWindow(out *stream) (stop func()) {
	fire, cancel := c.windowTimer(out.t)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-done:
		case <-fire:
			out.pub.Do(func(*cards.Card) { out.closeWindow() })
			out.pub.Refresh()
		}
	}()
	return func() {
		close(done)
		<-stopped
		cancel()
	}
}

func (c *Channel) windowTimer(t bot.Turn) (<-chan time.Time, func()) {
	if c.hooks.window != nil {
		return c.hooks.window(t.To.Stream), func() {}
	}
	timer := time.NewTimer(time.Until(time.UnixMilli(t.Received).Add(c.window)))
	return timer.C, func() { timer.Stop() }
}

// closeWindow records that the stream window ended, unless the turn already
// did: its last frame then shows everything. Call it with the card locked.
func (s *stream) closeWindow() {
	if !s.ended {
		s.windowClosed = true
	}
}

// end records that the agent's turn is over. Call it with the card locked.
func (s *stream) end() { s.ended = true }
