package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// approvalCommand answers /approve, /approve always and /deny, with an
// optional request number; without one it decides the oldest waiting request.
func (a *approvals) command(ctx context.Context, m Message, cmd string) (string, error) {
	v, id, ok := parseDecision(cmd, m.Text)
	if !ok {
		return textApprovalUsage, nil
	}
	r, err := a.decide(ctx, m.Conversation.Key(), m.User, id, v)
	a.auditNotYours(ctx, messageEvent(AuditRefused, m), r, v)
	return r.Text, err
}

// DecideOutcome says what a decision attempt did.
type DecideOutcome uint8

const (
	DecidedNow     DecideOutcome = iota + 1 // this call decided the request
	AlreadyDecided                          // it was decided before; Decision is that one
	NotYours                                // only an approver (or the requester, when allowed) may decide it
	NothingDecided                          // no such request is waiting
)

// Decided is the result of a decision attempt: what happened, and the line
// to show the user.
type Decided struct {
	Outcome  DecideOutcome
	ID       int64
	Decision ApprovalDecision // DecidedNow, AlreadyDecided
	Text     string
}

// parseDecision reads "/approve [always] [#]N" and "/deny [#]N"; id 0 means
// the oldest.
func parseDecision(cmd, text string) (v Verdict, id int64, ok bool) {
	v = VerdictDeny
	if cmd == "/approve" {
		v = VerdictApprove
	}
	for _, w := range strings.Fields(text)[1:] {
		switch {
		case strings.EqualFold(w, "always") && cmd == "/approve" && v == VerdictApprove:
			v = VerdictAlways
		case id == 0:
			n, err := strconv.ParseInt(strings.TrimPrefix(w, "#"), 10, 64)
			if err != nil || n <= 0 {
				return "", 0, false
			}
			id = n
		default:
			return "", 0, false
		}
	}
	return v, id, true
}

// decide records user's verdict on request id (0: the oldest waiting in
// conv). An id names its conversation, so an approver decides from any
// chat; without one the decision is about conv's own requests. Only an
// approver (access.approvers), or the requester when access.approvers lists
// "requester", may decide, and /approve always is an approver's alone;
// anyone else is told who may, and nothing is decided.
func (a *approvals) decide(ctx context.Context, conv, user string, id int64, v Verdict) (Decided, error) {
	if a.store == nil {
		return Decided{Outcome: NothingDecided, ID: id, Text: textNothingWaiting}, nil
	}
	if id != 0 {
		owner, err := a.store.ApprovalOwner(ctx, id)
		if err != nil {
			return Decided{}, fmt.Errorf("%s #%d: %w", v, id, err)
		}
		if owner != "" {
			conv = owner
		}
	}
	ids, reqs, err := a.store.PendingApprovals(ctx, conv)
	if err != nil {
		return Decided{}, fmt.Errorf("%s in %s: %w", v, conv, err)
	}
	i := 0
	if id != 0 {
		for i = 0; i < len(ids) && ids[i] != id; i++ {
		}
	}
	if i == len(ids) {
		if len(ids) == 0 && id == 0 {
			return Decided{Outcome: NothingDecided, Text: textNothingWaiting}, nil
		}
		return a.notWaiting(ctx, conv, id, ids)
	}
	id = ids[i]
	var rec approvalRequest
	if err := json.Unmarshal(reqs[i], &rec); err != nil {
		return Decided{}, fmt.Errorf("decode approval %d of %s: %w", id, conv, err)
	}
	acc := rec.access(a.cfg.Access)
	if !acc.mayDecide(user, rec.Requester, v == VerdictAlways) {
		a.log.Info("approval refused: not an approver", "conv", conv, "approval", id, "user", user, "requester", rec.Requester, "verdict", string(v))
		text := textNotYours(id, acc.only(rec.Requester, false))
		if v == VerdictAlways && acc.mayDecide(user, rec.Requester, false) {
			text = textAlwaysNotYours(id, acc.only(rec.Requester, true))
		}
		return Decided{Outcome: NotYours, ID: id, Text: text}, nil
	}
	d := ApprovalDecision{Verdict: v, By: user, At: time.Now().UnixMilli()}
	body, _ := json.Marshal(d)
	decided, current, _, err := a.store.DecideApproval(ctx, conv, id, body)
	if err != nil {
		return Decided{}, err
	}
	if !decided {
		var first ApprovalDecision
		_ = json.Unmarshal(current, &first)
		return Decided{Outcome: AlreadyDecided, ID: id, Decision: first, Text: textAlreadyDecided(id, first)}, nil
	}
	return Decided{Outcome: DecidedNow, ID: id, Decision: d, Text: textDecided(id, d, rec.What, rec.Always)}, nil
}

// pending answers /pending: every request, in any conversation, that user
// may decide, each with the commands that decide it.
func (a *approvals) pending(ctx context.Context, user string) (string, error) {
	if a.store == nil {
		return textNothingPending, nil
	}
	convs, ids, reqs, err := a.store.AllPendingApprovals(ctx)
	if err != nil {
		return "", fmt.Errorf("/pending for %s: %w", user, err)
	}
	lines := []string{textPendingHead}
	for i, id := range ids {
		var rec approvalRequest
		if json.Unmarshal(reqs[i], &rec) != nil || !rec.access(a.cfg.Access).mayDecide(user, rec.Requester, false) {
			continue
		}
		lines = append(lines, textPendingLine(id, convs[i], rec.Requester, rec.What))
	}
	if len(lines) == 1 {
		return textNothingPending, nil
	}
	return strings.Join(lines, "\n"), nil
}

// notWaiting answers a decision naming a request that is not waiting: it was
// decided already (said how), or never existed.
func (a *approvals) notWaiting(ctx context.Context, conv string, id int64, waiting []int64) (Decided, error) {
	b, err := a.store.ApprovalDecision(ctx, conv, id)
	if err != nil {
		return Decided{}, fmt.Errorf("look up approval %d of %s: %w", id, conv, err)
	}
	var d ApprovalDecision
	if b != nil && json.Unmarshal(b, &d) == nil {
		return Decided{Outcome: AlreadyDecided, ID: id, Decision: d, Text: textAlreadyDecided(id, d)}, nil
	}
	if len(waiting) == 0 {
		return Decided{Outcome: NothingDecided, ID: id, Text: textNothingWaiting}, nil
	}
	return Decided{Outcome: NothingDecided, ID: id, Text: textNotWaiting(id, waiting)}, nil
}

// auditNotYours records, on e (who asked, where), a decision refused
// because its sender may not decide that request.
func (a *approvals) auditNotYours(ctx context.Context, e AuditEvent, r Decided, v Verdict) {
	if r.Outcome != NotYours {
		return
	}
	e.Kind, e.Reason, e.Approval, e.Detail = AuditRefused, RefusedNotApprover, r.ID, string(v)
	a.cfg.Auditor.Audit(ctx, e)
}
