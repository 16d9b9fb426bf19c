package webhook

import "context"

// Store is the shared state the webhook channel needs; package store
// implements it over Redis.
type Store interface {
	// SaveFrame stores frame as the stream's newest frame.
	SaveFrame(ctx context.Context, streamID string, frame []byte) error
	// SaveFrameIf stores frame only when the stream has no frame yet or its
	// current frame is in state, atomically; it reports whether it stored.
	SaveFrameIf(ctx context.Context, streamID string, frame []byte, state FrameState) (bool, error)
	// SaveFrameUnless stores frame unless the stream's current frame is in
	// state, atomically; it reports whether it stored.
	SaveFrameUnless(ctx context.Context, streamID string, frame []byte, state FrameState) (bool, error)
	// LoadFrame returns the stream's newest frame; ok is false when none.
	LoadFrame(ctx context.Context, streamID string) (frame []byte, ok bool, err error)
	// SaveRest keeps a long answer, unread from byte offset from, for the
	// conversation's /more, replacing any earlier one.
	SaveRest(ctx context.Context, conv, title, answer string, from int) error
	// TakeRest returns and forgets the saved answer; ok is false when none.
	TakeRest(ctx context.Context, conv string) (rest Rest, ok bool, err error)
}

// FrameState is a stored frame's first byte, the state of its stream
// (frameWaiting, frameRunning, frameFinished). It is an alias, so the store
// (which imports nothing of this module) declares the identical type,
// store.FrameState, and its scripts compare that byte; the two must stay the
// same.
type FrameState = byte

// Rest is a long answer's unread end, as TakeRest returns it. It is an alias
// of a plain struct, so the store (which imports nothing of this module)
// declares the identical type, store.Rest; the two must stay the same.
type Rest = struct {
	// Title is the question the answer is to.
	Title string
	// Answer is the whole answer text.
	Answer string
	// From is the byte offset of the unread part of Answer.
	From int
}
