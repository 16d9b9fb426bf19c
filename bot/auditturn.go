package bot

import (
	"context"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// turnAudit is what one turn tells the auditor: its start, the commands and
// patches its agent ran, the approvals it asked, and its end with the
// tokens it used. A nil *turnAudit records nothing (a card built outside a
// turn).
type turnAudit struct {
	aud  Auditor
	base AuditEvent // who, where and which turn

	mu          sync.Mutex
	calls       map[acp.ToolCallId]toolCall // started, not yet completed
	first, last *acpbridge.Usage
}

// toolCall is a command or patch the agent started.
type toolCall struct {
	kind    AuditKind
	command string
	files   []string
}

func newTurnAudit(aud Auditor, q queued, turnID string) *turnAudit {
	return &turnAudit{aud: aud, calls: make(map[acp.ToolCallId]toolCall), base: AuditEvent{
		User: q.User, Conversation: q.conversation().Key(), Channel: q.Channel, Turn: turnID, MsgID: q.MsgID,
	}}
}

func (t *turnAudit) event(k AuditKind) AuditEvent {
	e := t.base
	e.Kind = k
	return e
}

func (t *turnAudit) started(ctx context.Context) {
	if t != nil {
		t.aud.Audit(ctx, t.event(AuditTurnStarted))
	}
}

// ended records the turn's end and returns the tokens it used (zero when
// the agent reported none).
func (t *turnAudit) ended(ctx context.Context, o string, took time.Duration) acpbridge.Tokens {
	if t == nil {
		return acpbridge.Tokens{}
	}
	e := t.event(AuditTurnEnded)
	e.Outcome, e.Duration = o, took
	used, ok := t.tokens()
	if ok {
		e.Tokens = &used
	}
	t.aud.Audit(ctx, e)
	return used
}

// tokens is what the turn used: the thread's total at the turn's last
// usage update less the total before its first model request.
func (t *turnAudit) tokens() (acpbridge.Tokens, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.first == nil {
		return acpbridge.Tokens{}, false
	}
	before := t.first.Total.Sub(t.first.Last)
	return t.last.Total.Sub(before), true
}

func (t *turnAudit) approvalAsked(ctx context.Context, id int64, what string) {
	if t == nil {
		return
	}
	e := t.event(AuditApprovalAsked)
	e.Approval, e.What = id, what
	t.aud.Audit(ctx, e)
}

func (t *turnAudit) approvalDecided(ctx context.Context, id int64, d ApprovalDecision) {
	if t == nil {
		return
	}
	e := t.event(AuditApprovalDecided)
	e.Approval, e.Verdict, e.By = id, d.Verdict, d.By
	t.aud.Audit(ctx, e)
}

// update notes what an agent update says about tokens, commands and
// patches. It runs on the agent's read loop: records go out with Later.
func (t *turnAudit) update(u acp.SessionUpdate) {
	if t == nil {
		return
	}
	switch {
	case u.UsageUpdate != nil:
		if usage, ok := acpbridge.UsageOf(u.UsageUpdate); ok {
			t.mu.Lock()
			if t.first == nil {
				t.first = &usage
			}
			t.last = &usage
			t.mu.Unlock()
		}
	case u.ToolCall != nil:
		t.toolStarted(u.ToolCall)
	case u.ToolCallUpdate != nil:
		t.toolUpdated(u.ToolCallUpdate)
	}
}

func (t *turnAudit) toolStarted(c *acp.SessionUpdateToolCall) {
	var call toolCall
	switch c.Kind {
	case acp.ToolKindExecute:
		call = toolCall{kind: AuditCommand, command: c.Title}
		if in, ok := c.RawInput.(map[string]any); ok {
			if cmd, ok := in["command"].(string); ok {
				call.command = cmd
			}
		}
	case acp.ToolKindEdit:
		call = toolCall{kind: AuditPatch}
		for _, l := range c.Locations {
			call.files = append(call.files, l.Path)
		}
	default:
		return
	}
	t.mu.Lock()
	t.calls[c.ToolCallId] = call
	t.mu.Unlock()
}

func (t *turnAudit) toolUpdated(u *acp.SessionToolCallUpdate) {
	if u.Status == nil || (*u.Status != acp.ToolCallStatusCompleted && *u.Status != acp.ToolCallStatusFailed) {
		return
	}
	t.mu.Lock()
	call, ok := t.calls[u.ToolCallId]
	delete(t.calls, u.ToolCallId)
	t.mu.Unlock()
	if !ok {
		return
	}
	e := t.event(call.kind)
	e.Command, e.Files = call.command, call.files
	if call.kind == AuditCommand {
		e.ExitCode = exitCodeOf(u.RawOutput)
	}
	if call.kind == AuditPatch && *u.Status == acp.ToolCallStatusFailed {
		return // not applied
	}
	t.aud.Later(e)
}

// exitCodeOf reads {"exitCode": n} (a number, or a float after an ACP hop).
func exitCodeOf(raw any) *int {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil
	}
	var n int
	switch v := m["exitCode"].(type) {
	case int:
		n = v
	case int64:
		n = int(v)
	case float64:
		n = int(v)
	default:
		return nil
	}
	return &n
}

// auditSink is a turn's sink that tells the turn's audit what its agent
// does before the card shows it.
type auditSink struct {
	turnSink
	audit *turnAudit
}

func (s auditSink) Update(u acp.SessionUpdate) {
	s.audit.update(u)
	s.turnSink.Update(u)
}

// outcomeRequeued is a turn_ended's outcome for a turn the shutdown cut
// short and queued again: it runs again as a new turn.
const outcomeRequeued = "requeued"
