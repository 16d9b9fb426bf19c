package bot

import (
	"context"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// ReportPermissions wraps a permission policy so each decision also shows as
// a notice on the card of the turn that asked (found by session id). Give the
// result to the agent; it looks the turn up when a request arrives, so the
// agent may be built before the engine.
func (e *Engine) ReportPermissions(decide acpbridge.PermissionFunc) acpbridge.PermissionFunc {
	return func(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		resp := decide(ctx, req)
		if sink, ok := e.Sink(req.SessionId); ok {
			sink.Notice(acpbridge.DecisionNotice(req, resp))
		}
		return resp
	}
}

// AskPermissions is the permission hook of agent.approval: ask. Each request
// waits, with the card saying what is asked, until the user who sent the
// message (or an admin) decides with /approve or /deny on any replica, the
// request times out (agent.approval_timeout: declined), or the turn ends
// (cancelled). Give it to the agent; like ReportPermissions it looks the
// turn up when a request arrives.
func (e *Engine) AskPermissions(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return e.approve.ask(ctx, req)
}

// Decide records user's verdict on approval request id (0: the oldest
// waiting) of conv, as /approve and /deny do, and says what happened, with
// the line to show the user. Channels with buttons call it for a click.
func (e *Engine) Decide(ctx context.Context, conv Conversation, user string, id int64, v Verdict) (Decided, error) {
	return e.approve.decide(ctx, conv.Key(), user, id, v)
}
