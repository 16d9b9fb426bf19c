package cards

import (
	acp "github.com/coder/acp-go-sdk"
)

// State is where a turn is.
type State int

const (
	// StateRunning is the zero value: a new card is for a turn that runs.
	StateRunning State = iota
	StateWaitingApproval
	StateDone
	StateCancelled
	StateFailed
)

// Status is a card's state with what qualifies it.
type Status struct {
	State State
	// Detail is the error text (StateFailed), what waits for approval
	// (StateWaitingApproval), or the stop reason when a turn ended otherwise
	// than by end_turn (StateDone).
	Detail string
}

// Terminal reports whether the turn is over.
func (s Status) Terminal() bool {
	return s.State == StateDone || s.State == StateCancelled || s.State == StateFailed
}

// String is the status as the playground shows it: "running", "waiting for
// approval", "done", "cancelled" or "failed: …".
// A finished turn's text always ends in "done".
func (s Status) String() string {
	switch s.State {
	case StateWaitingApproval:
		return "waiting for approval"
	case StateDone:
		if s.Detail != "" {
			return "stopped by " + s.Detail + ", done"
		}
		return "done"
	case StateCancelled:
		return "cancelled"
	case StateFailed:
		if s.Detail != "" {
			return "failed: " + OneLine(s.Detail)
		}
		return "failed"
	default:
		return "running"
	}
}

// Running is the status of a turn under way.
func Running() Status { return Status{State: StateRunning} }

// WaitingApproval is the status of a turn blocked on a permission request.
func WaitingApproval(what string) Status {
	return Status{State: StateWaitingApproval, Detail: what}
}

// Finished is the status of a turn that returned stop and err from
// acpbridge.Agent.Prompt: failed when err is set, cancelled, or done (with the
// stop reason kept when it is not end_turn).
func Finished(stop acp.StopReason, err error) Status {
	switch {
	case err != nil:
		return Status{State: StateFailed, Detail: err.Error()}
	case stop == acp.StopReasonCancelled:
		return Status{State: StateCancelled}
	case stop == acp.StopReasonEndTurn || stop == "":
		return Status{State: StateDone}
	default:
		return Status{State: StateDone, Detail: string(stop)}
	}
}
