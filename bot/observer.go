package bot

import "time"

// Outcome is how a turn ended, as an Observer counts it.
type Outcome string

const (
	OutcomeFinished  Outcome = "finished"  // the agent ended the turn itself
	OutcomeFailed    Outcome = "failed"    // the agent failed, or the lease was lost
	OutcomeCancelled Outcome = "cancelled" // /stop, or the engine shut down
	OutcomeTimedOut  Outcome = "timed_out" // agent.turn_timeout cut it
)

// Observer is told what the engine does, for metrics. Its methods are
// called on hot paths from many goroutines: they must be safe for
// concurrent use, quick, and must not block. Package metrics implements it
// over Prometheus; Config.Observer nil means NopObserver. What the engine
// does not see (platform callbacks, agent restarts, Redis errors, the long
// connection) cmd/wecodex hands to metrics directly.
type Observer interface {
	// TurnEnded is called once per turn run on this replica.
	TurnEnded(o Outcome, d time.Duration)
	// FirstProgress is the time from intake accepting a message to the
	// first snapshot of its card that shows anything the agent sent.
	FirstProgress(d time.Duration)
	// QueueDepth is how many messages wait behind the running turn of conv
	// on this replica; 0 once this replica stops running conv.
	QueueDepth(conv string, waiting int)
	// Approval counts one permission decision ("allow", "deny", ...).
	Approval(decision string)
	// Tokens counts n model tokens of kind (input, cached_input, output,
	// reasoning) a turn used.
	Tokens(kind string, n int64)
	// Limited counts a message a limit refused (LimitTurns, LimitTokens).
	Limited(limit string)
}

// How a channel answered one platform callback, as its handler reports it
// for metrics: CallbackOK, CallbackRejected (the platform or a stranger
// sent something we refuse) or CallbackError (we failed).
const (
	CallbackOK       = "ok"
	CallbackRejected = "rejected"
	CallbackError    = "error"
)

// NopObserver ignores everything.
type NopObserver struct{}

func (NopObserver) TurnEnded(Outcome, time.Duration) {}
func (NopObserver) FirstProgress(time.Duration)      {}
func (NopObserver) QueueDepth(string, int)           {}
func (NopObserver) Approval(string)                  {}
func (NopObserver) Tokens(string, int64)             {}
func (NopObserver) Limited(string)                   {}
