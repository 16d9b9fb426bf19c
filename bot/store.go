package bot

import (
	"context"
	"time"
)

// Store is the shared state the engine needs. Package store implements it
// over Redis; every replica of the bot uses the same one. Methods use only
// plain types so the store needs no knowledge of this package.
type Store interface {
	Dedupe
	Frames
	Conversations
	Leases
	Replicas
}

// Dedupe remembers which platform messages were already received.
type Dedupe interface {
	// ClaimMessage records msgID → streamID, scoped to the conversation and
	// the sender, unless that sender's msgID in that conversation is already
	// recorded. It returns the stream id recorded and whether this call
	// recorded it.
	ClaimMessage(ctx context.Context, conv, user, msgID, streamID string) (recorded string, claimed bool, err error)
}

// Frames keeps the newest encoded frame of each reply stream.
type Frames interface {
	// SaveFrame stores frame as the stream's newest frame.
	SaveFrame(ctx context.Context, streamID string, frame []byte) error
	// SaveFrameIf stores frame only when the stream has no frame yet or its
	// current frame starts with prefix, atomically; it reports whether it
	// stored.
	SaveFrameIf(ctx context.Context, streamID string, frame []byte, prefix string) (bool, error)
	// SaveFrameUnless stores frame unless the stream's current frame starts
	// with prefix, atomically; it reports whether it stored.
	SaveFrameUnless(ctx context.Context, streamID string, frame []byte, prefix string) (bool, error)
	// LoadFrame returns the stream's newest frame; ok is false when none.
	LoadFrame(ctx context.Context, streamID string) (frame []byte, ok bool, err error)
}

// Conversations keeps each conversation's agent session and working
// directory.
type Conversations interface {
	// Conversation returns the recorded session id and cwd ("" when none).
	Conversation(ctx context.Context, conv string) (sessionID, cwd string, err error)
	// SaveConversation records the conversation's session id and cwd.
	SaveConversation(ctx context.Context, conv, sessionID, cwd string) error
	// ForgetSession drops the session id so the next turn starts a new one.
	ForgetSession(ctx context.Context, conv string) error
	// SaveRest keeps a long answer, unread from byte offset from, for the
	// conversation's /more, replacing any earlier one.
	SaveRest(ctx context.Context, conv, title, answer string, from int) error
	// TakeRest returns and forgets the saved answer; ok is false when none.
	TakeRest(ctx context.Context, conv string) (title, answer string, from int, ok bool, err error)
}

// Leases serialises turns: per conversation, a lease with a fencing token and
// a FIFO queue of waiting messages, plus the set of conversations that have
// waiting messages.
type Leases interface {
	// Enqueue appends item to the conversation's queue unless the queue
	// already holds max items, and marks the conversation pending. position
	// is the item's 1-based place in the queue (0 when refused because the
	// queue is full); leased says whether a turn holds the lease right now.
	Enqueue(ctx context.Context, conv string, item []byte, max int) (position int, leased bool, err error)
	// Queued returns the waiting items, oldest first.
	Queued(ctx context.Context, conv string) ([][]byte, error)
	// TakeTurn acquires the free lease for replica and pops the oldest
	// waiting item in one step, recording replica as the conversation's
	// owner and the item as running. token is 0 when the lease is held or
	// the queue is empty; queued is the queue length after the call. orphan
	// is the item a previous holder was running when its lease lapsed
	// without a release (it died mid-turn), handed to one caller only, even
	// when token is 0.
	TakeTurn(ctx context.Context, conv, replica string, ttl time.Duration) (token int64, item []byte, queued int, orphan []byte, err error)
	// NextTurn pops the next waiting item for the holder of token, records
	// it as running and renews the lease, or releases the lease when the
	// queue is empty (item nil). held is false when token no longer holds
	// the lease; nothing changes then.
	NextTurn(ctx context.Context, conv string, token int64, ttl time.Duration) (item []byte, held bool, err error)
	// RenewLease extends the lease held with token. held is false when the
	// token no longer holds it; stop is true when /stop asked this turn to
	// end.
	RenewLease(ctx context.Context, conv string, token int64, ttl time.Duration) (held, stop bool, err error)
	// ReleaseLease frees the lease, and forgets the running item, if token
	// still holds it.
	ReleaseLease(ctx context.Context, conv string, token int64) (released bool, err error)
	// Lease returns the replica and token holding the lease; token 0 when free.
	Lease(ctx context.Context, conv string) (replica string, token int64, err error)
	// RequestStop asks the turn holding the lease to stop (noticed on its
	// next renewal, and announced on the stop channel). running is false when
	// no turn holds the lease.
	RequestStop(ctx context.Context, conv string) (running bool, err error)
	// WatchStops calls fn with the conversation of every stop request
	// announced, until ctx ends. ready is called once the subscription is live.
	WatchStops(ctx context.Context, ready func(), fn func(conv string)) error
	// Pending returns up to max conversations that may have waiting items.
	Pending(ctx context.Context, max int) ([]string, error)
	// SettlePending drops conv from the pending set if its queue is empty
	// and no turn is recorded running.
	SettlePending(ctx context.Context, conv string) error
}

// Replicas tracks which replicas are alive and which one owns (ran the last
// turn of) a conversation, for affinity: the agent's thread lives with the
// replica that ran it.
type Replicas interface {
	// Heartbeat records replica as alive for ttl.
	Heartbeat(ctx context.Context, replica string, ttl time.Duration) error
	// ReplicaAlive reports whether replica's heartbeat is current.
	ReplicaAlive(ctx context.Context, replica string) (bool, error)
	// Owner returns the replica that last took a turn of conv ("" when none).
	Owner(ctx context.Context, conv string) (string, error)
}
