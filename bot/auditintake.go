package bot

import (
	"context"
	"log/slog"
)

// refusal is why intake refuses to run a message: the card's line and the
// audit's reason.
type refusal struct {
	line, reason string
}

// messageEvent is an audit event of kind k about m.
func messageEvent(k AuditKind, m Message) AuditEvent {
	return AuditEvent{Kind: k, User: m.User, Conversation: m.Conversation.Key(), Channel: m.Channel, MsgID: m.ID}
}

// auditMessage records m's first delivery; the auditor keeps its text only
// with audit.include_text.
func (in *intake) auditMessage(ctx context.Context, m Message, text string) {
	e := messageEvent(AuditMessage, m)
	e.Length, e.Text = len(text), text
	in.cfg.Auditor.Audit(ctx, e)
}

func (in *intake) auditRefused(ctx context.Context, m Message, reason string) {
	in.auditRefusedDetail(ctx, m, reason, "")
}

// auditRefusedDetail is auditRefused with one line more (what was asked).
func (in *intake) auditRefusedDetail(ctx context.Context, m Message, reason, detail string) {
	e := messageEvent(AuditRefused, m)
	e.Reason, e.Detail = reason, detail
	in.cfg.Auditor.Audit(ctx, e)
}

// auditSetting records a change of the conversation's setting (mode,
// model, project, session) that m made.
func (in *intake) auditSetting(ctx context.Context, m Message, setting, value string) {
	e := messageEvent(AuditSetting, m)
	e.Setting, e.Value = setting, value
	in.cfg.Auditor.Audit(ctx, e)
}

// refuseLimited answers a message a limit refused: its card names the
// limit and when it resets.
func (in *intake) refuseLimited(ctx context.Context, log *slog.Logger, ch Channel, m Message, r refusal) (Receipt, error) {
	log.Info("refused: a limit is reached", "limit", r.reason)
	in.auditRefused(ctx, m, r.reason)
	in.cfg.Observer.Limited(r.reason)
	return in.show(ctx, ch, replyTo(m, ReplyFinished, r.line))
}
