package schedule

import (
	"context"
	"strings"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// Auditor records what fired (the engine's audit trail, bot.Auditor).
type Auditor interface {
	Audit(ctx context.Context, e bot.AuditEvent)
}

type nopAuditor struct{}

func (nopAuditor) Audit(context.Context, bot.AuditEvent) {}

// RunAs is whom t runs as: its User, else a 1:1 conversation's own user,
// else (a group) the source that fired it, so the logs, the audit trail
// and the approval card name the schedule or trigger.
func (t Turn) RunAs() string {
	if t.User != "" {
		return t.User
	}
	kind, id, _ := strings.Cut(t.Conversation, ":")
	if kind == "group" {
		return "wecodex-" + strings.ReplaceAll(t.Source, " ", "-")
	}
	return id
}

// fireEvent is the audit record of one fire of t: kind schedule (at is
// the slot) or trigger (at is the request's timestamp), with its outcome.
// MsgID is the turn's id, which the turn's own message record carries too.
func fireEvent(kind bot.AuditKind, name string, t Turn, at time.Time, outcome string) bot.AuditEvent {
	return bot.AuditEvent{Kind: kind, Name: name, At: at, Outcome: outcome, User: t.RunAs(),
		Conversation: t.Conversation, MsgID: t.ID, Project: t.Project}
}
