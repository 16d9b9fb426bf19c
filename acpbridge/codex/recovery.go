package codex

import (
	"errors"

	"github.com/wecodex/wecodex/acpbridge"
)

// What the bridge does when the app-server a request or turn went to hangs
// (the watchdog kills it) or dies: the next call starts a new one, and
// whatever the dead one had not yet acted on is sent again, once, to the new
// one; a turn it was running carries on there in one continuation turn. A
// process fault the user cannot see must not cost them their message.

// tookEffect is the rule, per request kind, for whether a request the
// app-server exited under had taken effect there, so that sending it again
// would do it twice. answered says the server answered it; turnStarted that
// it reported turn/started for it (turn/start only).
//
//   - thread/start, thread/resume: only an answer shows it. Unanswered, a
//     thread/start left at most an empty thread in the dead server (no turn
//     ran, Codex writes no rollout before the first turn), and a resume
//     changes nothing a second one would repeat.
//   - turn/start: Codex reported turn/started. Until then the model was not
//     asked and nothing ran; from then on the turn may have run commands,
//     so it is never started again with the user's prompt: it is continued.
//
// Any other request (the watchdog's probe, an interrupt, a history page)
// is not re-sent: it belongs to the server that died.
func tookEffect(method string, answered, turnStarted bool) bool {
	switch method {
	case "thread/start", "thread/resume":
		return answered
	case "turn/start":
		return turnStarted
	}
	return true
}

// resent reports whether err, from a request of method the app-server did
// not answer, means the request is sent again to a new app-server: the
// server exited under it and it had not taken effect.
func resent(method string, err error) bool {
	return errors.Is(err, ErrAppServerExited) && !tookEffect(method, false, false)
}

// The continuation turn's prompt and the card's line for it are the
// agent domain's, shared with the external client.
const (
	continuationPrompt     = acpbridge.ContinuationPrompt
	noticeContinuedHung    = acpbridge.NoticeContinuedHung
	noticeContinuedCrashed = acpbridge.NoticeContinuedCrashed
)

// continuedNotice is the progress line for a turn continued after err.
func continuedNotice(err error) acpbridge.Notice {
	return acpbridge.ContinuedNotice(errors.Is(err, ErrAppServerHung))
}

// errFaultedAgain fails a turn whose app-server exited a second time: one
// recovery per turn, so a server that keeps dying cannot loop a card.
type errFaultedAgain struct{ err error }

func (e *errFaultedAgain) Error() string {
	if errors.Is(e.err, ErrAppServerHung) {
		return "codex app-server stopped answering again while the interrupted work continued; send the message again"
	}
	return "codex app-server exited again while the interrupted work continued; send the message again"
}

func (e *errFaultedAgain) Unwrap() error { return e.err }

// faultedAgain marks the second exit of one turn with its kind (hung or
// crashed, as the exit error says).
func faultedAgain(err error) error {
	return acpbridge.E(acpbridge.KindOf(err), &errFaultedAgain{err: err})
}
