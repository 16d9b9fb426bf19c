package playground

import (
	"strconv"

	"github.com/wecodex/wecodex/cards"
)

// States a card is in, as the page styles them.
const (
	StateSending   = "sending"
	StateQueued    = "queued"
	StateRunning   = "running"
	StateWaiting   = "waiting"
	StateDone      = "done"
	StateCancelled = "cancelled"
	StateFailed    = "failed"
)

// stateNames names a card's cards.State for the page.
var stateNames = map[cards.State]string{
	cards.StateRunning:         StateRunning,
	cards.StateWaitingApproval: StateWaiting,
	cards.StateDone:            StateDone,
	cards.StateCancelled:       StateCancelled,
	cards.StateFailed:          StateFailed,
}

// shown is one frame (or response_url message) as the page shows it.
type shown struct {
	progress string
	state    string // one of the State constants
	status   string // the status text on the card; a finished turn's ends in "done"
	body     string // markdown of the body
}

// seeFrame is what a user sees of a frame, typed by readStream with the words
// cards writes frames with. finish is the frame's
// flag, or true for a response_url message, which is complete when it
// arrives.
func seeFrame(content string, finish bool) shown {
	v := readStream(content)
	s := shown{progress: v.Progress, state: stateNames[v.Status.State], status: v.Status.String(), body: v.Body}
	switch {
	case v.Queued > 0:
		s.state, s.status = StateQueued, "queued (position "+strconv.Itoa(v.Queued)+")"
	case v.Line != "":
		if v.Status.State == cards.StateWaitingApproval {
			// What is asked, and how to decide, is the card's to show.
			s.body = joinParagraphs(v.Body, v.Line)
		}
	case v.Continues:
		s.status = "running (continues in a separate message)"
	case finish:
		s.state, s.status = StateDone, cards.Status{State: cards.StateDone}.String()
	}
	return s
}

func joinParagraphs(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}
