package bot

import (
	"context"

	"github.com/wecodex/wecodex/acpbridge"
)

// approvalAsk is Config.Approval's default: a person decides each request.
const approvalAsk = "ask"

// turnSink is the acpbridge.Sink a turn's agent writes to and asks: the
// turn's card, wrapped in how its permission requests are decided.
type turnSink interface {
	acpbridge.Sink
	// settle answers every permission request the turn still waits on as
	// cancelled, and returns once each is answered and the card says so.
	settle()
}

// permissions is agent.approval: it wraps the card of turn q, presented on
// ch, into the sink the turn's agent is given.
type permissions interface {
	sinkFor(card cardSink, q *queued, ch Channel) turnSink
}

// newPermissions is the permissions of Config.Approval: ask (or empty)
// waits for a person through ap; any other value is an acpbridge.Policy,
// which decides at once and denies what it does not know.
func newPermissions(approval string, ap *approvals) permissions {
	if approval == "" || approval == approvalAsk {
		return ap
	}
	return policy(approval)
}

// policy decides every request of a turn without asking anyone, and says
// so on the card.
type policy acpbridge.Policy

func (p policy) sinkFor(card cardSink, _ *queued, _ Channel) turnSink {
	return decidedSink{acpbridge.Policy(p).Wrap(card)}
}

// decidedSink is a turn's sink whose requests a policy answers at once, so
// none is left waiting when the turn ends.
type decidedSink struct{ acpbridge.Sink }

func (decidedSink) settle() {}

// Decide records user's verdict on approval request id (0: the oldest
// waiting) of conv, as /approve and /deny do, and says what happened, with
// the line to show the user. Channels with buttons call it for a click.
func (e *Engine) Decide(ctx context.Context, conv Conversation, user string, id int64, v Verdict) (Decided, error) {
	r, err := e.approve.decide(ctx, conv.Key(), user, id, v)
	e.approve.auditNotYours(ctx, AuditEvent{User: user, Conversation: conv.Key()}, r, v)
	return r, err
}
