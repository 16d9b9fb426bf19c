package bot

import (
	"context"
	"errors"
	"time"
)

// Store is the shared state the engine needs, one part per purpose.
// Package store implements each part over Redis with a type of its own;
// every replica of the bot uses the same Redis. Methods use only plain
// types so the store needs no knowledge of this package. Each collaborator
// of the engine takes only the parts it uses (IntakeStore, SchedulerStore,
// TurnStore, ApprovalStore).
type Store struct {
	Dedupe        Dedupe
	Queue         Leases
	Replicas      Replicas
	Conversations Conversations
	Attachments   Attachments
	// Approvals may be nil (a test's store): every request is then
	// declined.
	Approvals ApprovalStore
	// Limits may be nil: nobody is then limited.
	Limits LimitStore
	// Threads may be nil: no session is then recorded, and /sessions,
	// /resume and /fork say they are not available.
	Threads ThreadStore
}

// check reports the first required part that is missing.
func (s Store) check() error {
	for _, p := range []struct {
		name string
		set  bool
	}{{"Dedupe", s.Dedupe != nil}, {"Queue", s.Queue != nil}, {"Replicas", s.Replicas != nil},
		{"Conversations", s.Conversations != nil}, {"Attachments", s.Attachments != nil}} {
		if !p.set {
			return errors.New("bot: the store has no " + p.name)
		}
	}
	return nil
}

// intakeParts, schedulerParts and turnParts give each collaborator the
// parts it uses as the one interface it declares.
type intakeParts struct {
	Dedupe
	Attachments
	Leases
	Conversations
}

type schedulerParts struct {
	Leases
	Replicas
}

type turnParts struct {
	Attachments
	Conversations
}

// IntakeStore is what intake uses: dedupe, the queue, and what commands read
// and change.
type IntakeStore interface {
	Dedupe
	Attachments
	Enqueue(ctx context.Context, conv string, item []byte, max int) (position int, leased bool, err error)
	Queued(ctx context.Context, conv string) ([][]byte, error)
	Lease(ctx context.Context, conv string) (replica string, token int64, err error)
	ClaimLease(ctx context.Context, conv, replica string, ttl time.Duration) (token int64, err error)
	ReleaseLease(ctx context.Context, conv string, token int64) (released bool, err error)
	RequestStop(ctx context.Context, conv string) (running bool, err error)
	Conversation(ctx context.Context, conv string) (sessionID, cwd string, err error)
	SaveConversation(ctx context.Context, conv, sessionID, cwd string) error
	ForgetSession(ctx context.Context, conv string) error
	ReserveBacklog(ctx context.Context, user, message string, max int) (reserved, added bool, err error)
	ReleaseBacklog(ctx context.Context, user, message string) error
	ChooseProject(ctx context.Context, conv, project string) error
	ChosenProject(ctx context.Context, conv string) (string, error)
	ChooseSetting(ctx context.Context, conv, setting, value string) error
	ChosenSettings(ctx context.Context, conv string) (map[string]string, error)
}

// SchedulerStore is what the scheduler uses: leases, the queue, affinity and
// stop requests.
type SchedulerStore interface {
	Leases
	Replicas
}

// TurnStore is what the turn runner uses: each conversation's session, and
// the attachments of the message it runs.
type TurnStore interface {
	Attachments
	Conversation(ctx context.Context, conv string) (sessionID, cwd string, err error)
	SaveConversation(ctx context.Context, conv, sessionID, cwd string) error
	TouchConversation(ctx context.Context, conv, user string, at time.Time) error
	ChosenProject(ctx context.Context, conv string) (string, error)
	ChosenSettings(ctx context.Context, conv string) (map[string]string, error)
}

// Dedupe remembers which platform messages were already received.
type Dedupe interface {
	// ClaimMessage records msgID → streamID, scoped to the conversation and
	// the sender, unless that sender's msgID in that conversation is already
	// recorded. It returns the stream id recorded and whether this call
	// recorded it.
	ClaimMessage(ctx context.Context, conv, user, msgID, streamID string) (recorded string, claimed bool, err error)
	// ReleaseClaim undoes ClaimMessage for streamID (a claim recorded for
	// another stream stays), when the answer it claimed for could not be
	// shown: the platform's retry then runs the message again.
	ReleaseClaim(ctx context.Context, conv, user, msgID, streamID string) error
	// ClaimAndEnqueue claims the message as ClaimMessage does and appends
	// item to the conversation's queue (unless it holds max items) in one
	// atomic step, so a failure leaves neither and the retry runs the
	// message; a repeat is not queued again (claimed false, recorded its
	// stream). position is the item's 1-based place, 0 when the queue was
	// full or the message a repeat; leased says whether a turn holds the
	// lease. The conversation is marked pending.
	ClaimAndEnqueue(ctx context.Context, conv, user, msgID, streamID string, item []byte, max int) (recorded string, claimed bool, position int, leased bool, err error)
}

// Attachments keeps the bytes of a queued message's attachments until its
// turn is over, so whichever replica runs the turn can write them into its
// workspace. A message is named by its conversation and the stream intake
// gave it; index is the attachment's place in Message.Attachments.
type Attachments interface {
	// SaveAttachment keeps data for a day.
	SaveAttachment(ctx context.Context, conv, stream string, index int, data []byte) error
	// Attachment returns what SaveAttachment kept; ok is false when it is
	// gone (expired, or deleted).
	Attachment(ctx context.Context, conv, stream string, index int) (data []byte, ok bool, err error)
	// DeleteAttachments drops attachments 0..n-1 of the message.
	DeleteAttachments(ctx context.Context, conv, stream string, n int) error
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
	// TouchConversation records that a turn of conv, sent by user, started
	// at at, and lists conv among the conversations (newest first).
	TouchConversation(ctx context.Context, conv, user string, at time.Time) error
	// ChooseProject records the project conv chose (/project) and drops
	// its session, so the next turn starts fresh there.
	ChooseProject(ctx context.Context, conv, project string) error
	// ChosenProject is what ChooseProject recorded, "" for nothing.
	ChosenProject(ctx context.Context, conv string) (string, error)
	// ChooseSetting records conv's own model or effort ("" drops it);
	// ChosenSettings returns them by name.
	ChooseSetting(ctx context.Context, conv, setting, value string) error
	ChosenSettings(ctx context.Context, conv string) (map[string]string, error)
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
	// owner and the item as running. token is the lease's fencing token, 0
	// when the lease is held or the queue is empty; item is the popped item
	// (nil when token is 0); queued is the queue length after the call.
	// orphan is the item a previous holder was running when its lease
	// lapsed without a release (it died mid-turn), handed to one caller
	// only, even when no lease is taken.
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
	// RequeueTurn puts the item the holder of token is running back at the
	// head of the queue and frees the lease, in one step, so the next replica
	// to take the conversation runs it again first. requeued is false when
	// token no longer holds the lease or nothing was recorded running.
	RequeueTurn(ctx context.Context, conv string, token int64) (requeued bool, err error)
	// RunFirst makes item (an orphan to run once more) the conversation's
	// next turn, ahead of the messages sent after it: under token, the
	// lease TakeTurn gave (the item it popped waits first again), or on
	// the free lease when token is 0. run is the token item now runs
	// under; 0 when another replica holds the lease and item waits first
	// in line for it.
	RunFirst(ctx context.Context, conv, replica string, token int64, item []byte, ttl time.Duration) (run int64, err error)
	// RetakeLease gives the holder of token back a lease that vanished
	// (Redis restarted empty or failed over, or the lease lapsed unclaimed),
	// with running recorded as its turn (nil keeps what is recorded). held
	// is false when another holder took the lease since: fencing holds, and
	// the old holder must stop.
	RetakeLease(ctx context.Context, conv, replica string, token int64, running []byte, ttl time.Duration) (held bool, err error)
	// ReleaseLease frees the lease, and forgets the running item, if token
	// still holds it.
	ReleaseLease(ctx context.Context, conv string, token int64) (released bool, err error)
	// Lease returns the replica and token holding the lease; token 0 when free.
	Lease(ctx context.Context, conv string) (replica string, token int64, err error)
	// ClaimLease takes the free lease for replica without taking a turn,
	// for work that must not overlap one (/reset yes); ReleaseLease ends
	// it, and the messages queued meanwhile wait for it. token is 0 when
	// a turn holds the lease, or is recorded running by a holder that died.
	ClaimLease(ctx context.Context, conv, replica string, ttl time.Duration) (token int64, err error)
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
	// ReserveBacklog counts message in user's backlog (their messages
	// waiting in any conversation, on any replica) unless it holds max
	// already: reserved is false then. added is false when message was
	// counted before (a repeated delivery). A message stops counting on
	// ReleaseBacklog, or by itself once a queue would have expired.
	ReserveBacklog(ctx context.Context, user, message string, max int) (reserved, added bool, err error)
	// ReleaseBacklog stops counting message in user's backlog.
	ReleaseBacklog(ctx context.Context, user, message string) error
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
