package bot

import (
	"context"

	"github.com/wecodex/wecodex/cards"
)

// Channel is one way users reach the engine: a WeCom mode, or a test's
// in-memory chat. A channel turns its platform's callbacks into Messages and
// hands them to Engine.Receive; the engine calls the channel back to show
// answers, on whichever replica runs the turn, so a channel must present any
// message it received on any replica (its state lives in the shared store or
// travels in the ReplyTo handle).
//
// Adding a channel touches neither the scheduler nor the turn runner.
type Channel interface {
	// Name identifies the channel in queued messages, logs and /readyz; it
	// is unique per engine and stable across releases.
	Name() string
	// Show puts a short answer on a message's reply: a placeholder, a queue
	// position, a command's output, a refusal, a lost turn's failure. A
	// ReplyWaiting reply replaces only a reply that is still waiting (or
	// none); any other replaces anything but a finished reply. shown says
	// whether it replaced.
	Show(ctx context.Context, r Reply) (shown bool, err error)
	// CardOptions are the card options the channel's limits need (its byte
	// budget), added to the engine's own for every card of the channel.
	CardOptions() []cards.Option
	// Present opens the presentation of a turn that starts now: Present(p)
	// of the channel's Presenter.
	Present(t Turn) Presentation
}

// Continuer is a Channel that keeps the unread end of a long answer for the
// user's /more; More renders its next part. Channels that never cut an
// answer need not implement it.
type Continuer interface {
	More(ctx context.Context, c Conversation) (string, error)
}

// ReplyTo is the handle a channel answers one message on. It is recorded with
// the queued message, so any replica presents the turn on it.
type ReplyTo struct {
	// Stream names the reply. The engine assigns it at intake and dedupe
	// records it, so a repeated delivery finds the same reply.
	Stream string
	// URL is a platform address for answers that outlive the reply (WeCom
	// response_url); empty when the channel has none.
	URL string
	// Ref is the channel's own reference (the long connection's req_id, the
	// app's user); the engine passes it through untouched.
	Ref string
}

// ReplyState orders the replies of one message: a waiting reply (a queue
// position) never overwrites a running turn's card, and nothing overwrites a
// finished one.
type ReplyState uint8

const (
	ReplyWaiting ReplyState = iota + 1
	ReplyRunning
	ReplyFinished
)

// Reply is a short answer on one message's reply.
type Reply struct {
	Conversation Conversation
	User         string
	To           ReplyTo
	State        ReplyState
	// Text is the markdown to show, unless Card is set.
	Text string
	// Card, when set, is a finished card to show instead of Text, rendered
	// for the channel's limits.
	Card *cards.Card
}

// Turn is the message a turn runs, as the turn runner hands it to its
// channel.
type Turn struct {
	MsgID        string
	Conversation Conversation
	User         string
	Text         string
	To           ReplyTo
	// Received (unix ms) is when intake accepted the message.
	Received int64
}
