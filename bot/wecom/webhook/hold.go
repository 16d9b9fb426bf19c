package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// frameAbsent is a state no stored frame has: SaveFrameIf with it stores
// only into a stream that has no frame yet, which makes it a claim.
const frameAbsent frameState = ""

// Hold claims m's reply stream (m.Reply.Stream) before m is received: it
// stores a waiting frame showing text only when the stream has no frame.
// held is false when another delivery of m holds it already; f is then the
// stream's newest frame.
func (c *Channel) Hold(ctx context.Context, m bot.Message, text string) (f Frame, held bool, err error) {
	own := owner(m.Conversation, m.User)
	stored, err := c.store.SaveFrameIf(ctx, m.Reply.Stream, string(frameAbsent), string(frameWaiting), own.conversation, own.user, text)
	if err != nil {
		return Frame{}, false, fmt.Errorf("hold stream %s: %w", m.Reply.Stream, err)
	}
	if stored {
		return Frame{StreamID: m.Reply.Stream, Content: text}, true, nil
	}
	s, ok, err := c.loadFrame(ctx, m.Reply.Stream)
	if err != nil {
		return Frame{}, false, err
	}
	if !ok || s.owner != own {
		// Expired since, or not this sender's: show the hold text, no more.
		return Frame{StreamID: m.Reply.Stream, Content: text}, false, nil
	}
	return s.frame(m.Reply.Stream), false, nil
}

// Settle finishes a held stream whose message could not be received.
func (c *Channel) Settle(ctx context.Context, m bot.Message, text string) error {
	_, err := c.saveTurnFrame(ctx, m.Reply.Stream, owner(m.Conversation, m.User), frameFinished, text)
	return err
}

func (b bound) Hold(ctx context.Context, m bot.Message, text string) (Frame, bool, error) {
	return b.c.Hold(ctx, m, text)
}

func (b bound) Settle(ctx context.Context, m bot.Message, text string) error {
	return b.c.Settle(ctx, m, text)
}

func (b bound) RecordFetch(ctx context.Context, streamID string, msg []byte, claimer string, claim time.Duration) (bool, error) {
	return b.c.store.RecordFetch(ctx, streamID, msg, claimer, claim)
}

func (b bound) RenewFetch(ctx context.Context, streamID, claimer string, claim time.Duration) (bool, error) {
	return b.c.store.RenewFetch(ctx, streamID, claimer, claim)
}

func (b bound) ForgetFetch(ctx context.Context, streamID string) error {
	return b.c.store.ForgetFetch(ctx, streamID)
}

func (b bound) TakeLapsedFetches(ctx context.Context, claimer string, claim time.Duration) (map[string][]byte, error) {
	return b.c.store.TakeLapsedFetches(ctx, claimer, claim)
}

// The endpoint records messages with files through the channel's store.
var _ FetchLog = bound{}
