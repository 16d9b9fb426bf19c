package webhook

import (
	"context"
	"time"
)

// Store is the shared state the webhook channel needs; package store
// implements it over Redis (store.Webhook). A frame is stored by field: its
// stream's state (frameWaiting, frameRunning, frameFinished), its owner and
// user (who may read it, see owner), and its content.
type Store interface {
	// SaveFrameIf stores the frame only when the stream has no frame yet or
	// its current frame is in state ifState ("": only when it has none),
	// atomically; it reports whether it stored.
	SaveFrameIf(ctx context.Context, streamID, ifState, state, owner, user, content string) (bool, error)
	// SaveFrameUnless stores the frame unless the stream's current frame is
	// in state keep, atomically; it reports whether it stored.
	SaveFrameUnless(ctx context.Context, streamID, keep, state, owner, user, content string) (bool, error)
	// SaveFrameItemsUnless is SaveFrameUnless for a frame with pictures
	// (items, msg_item JSON), stored with it in one step.
	SaveFrameItemsUnless(ctx context.Context, streamID, keep, state, owner, user, content, items string) (bool, error)
	// FrameItems returns the pictures stored with the stream's frame ("" when
	// none).
	FrameItems(ctx context.Context, streamID string) (string, error)
	// LoadFrame returns the stream's newest frame; ok is false when none.
	LoadFrame(ctx context.Context, streamID string) (state, owner, user, content string, ok bool, err error)
	// LegacyFrame returns the frame a replica of the release before this
	// one wrote, as it wrote it (see legacyframe.go); ok is false when none.
	LegacyFrame(ctx context.Context, streamID string) (frame []byte, ok bool, err error)
	// NoteMissingFrame is told that a stream's frame is missing; lost is
	// true while Redis lost its data (restarted empty, failed over) less
	// than window ago.
	NoteMissingFrame(ctx context.Context, window time.Duration) (lost bool, err error)
	// TurnRunning reports whether a turn of conv holds its lease on a
	// replica whose heartbeat is current.
	TurnRunning(ctx context.Context, conv string) (bool, error)
	// FetchLog keeps the messages whose files are being fetched.
	FetchLog
	// SaveRest keeps a long answer, unread from byte offset from, for the
	// conversation's /more, replacing any earlier one.
	SaveRest(ctx context.Context, conv, title, answer string, from int) error
	// TakeRest returns and forgets the saved answer: the question it is to,
	// the whole answer and the byte offset of its unread part; ok is false
	// when none.
	TakeRest(ctx context.Context, conv string) (title, answer string, from int, ok bool, err error)
}
