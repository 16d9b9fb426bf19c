package codex

import (
	"context"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// Permission option ids offered for every Codex approval.
const (
	OptionAllowOnce   acp.PermissionOptionId = "allow_once"
	OptionAllowAlways acp.PermissionOptionId = "allow_always"
	OptionRejectOnce  acp.PermissionOptionId = "reject_once"
)

var permissionOptions = []acp.PermissionOption{
	{OptionId: OptionAllowOnce, Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce},
	{OptionId: OptionAllowAlways, Name: "Allow for this session", Kind: acp.PermissionOptionKindAllowAlways},
	{OptionId: OptionRejectOnce, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
}

// approval turns a Codex approval request into an ACP permission request,
// asks the sink of the turn it belongs to and answers Codex with the
// decision. It runs on the read loop, so the decision itself (which may wait
// for a person) runs on its own goroutine, owned by the turn: when the turn
// ends its context is cancelled and the answer is cancel.
func (a *Agent) approval(c *conn, id json.RawMessage, method string, params []byte) {
	var p approvalParams
	if err := json.Unmarshal(params, &p); err != nil {
		a.log.Warn("decode "+method, "err", err)
		a.answerApproval(c, id, "decline")
		return
	}
	th := a.lookupThread([]byte(p.ThreadID))
	ts := th.runningTurn([]byte(p.TurnID))
	if ts == nil || ts.ctx.Err() != nil {
		a.answerApproval(c, id, "cancel")
		return
	}
	req := acp.RequestPermissionRequest{
		SessionId: acp.SessionId(p.ThreadID),
		Options:   permissionOptions,
		ToolCall:  a.approvalToolCall(th, method, &p),
	}
	go func(ctx context.Context, sink acpbridge.Sink) {
		resp := sink.RequestPermission(ctx, req)
		a.answerApproval(c, id, decision(ctx, resp))
	}(ts.ctx, ts.sink)
}

func (a *Agent) approvalToolCall(th *thread, method string, p *approvalParams) acp.ToolCallUpdate {
	tc := acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(p.ItemID), Status: acp.Ptr(acp.ToolCallStatusPending)}
	raw := map[string]any{}
	if p.Reason != nil && *p.Reason != "" {
		raw["reason"] = *p.Reason
	}
	if method == "item/fileChange/requestApproval" {
		tc.Kind = acp.Ptr(acp.ToolKindEdit)
		tc.Title = acp.Ptr("Apply file changes")
		if changes := th.tr.fileChanges(p.ItemID); len(changes) > 0 {
			tc.Title = acp.Ptr(fileChangeTitle(changes))
			tc.Content = diffContent(changes)
			tc.Locations = locations(changes)
		}
	} else {
		tc.Kind = acp.Ptr(acp.ToolKindExecute)
		title := "Run a command"
		if p.Command != nil && *p.Command != "" {
			title = *p.Command
			raw["command"] = *p.Command
		}
		if p.Cwd != nil {
			raw["cwd"] = *p.Cwd
		}
		tc.Title = &title
	}
	tc.RawInput = raw
	return tc
}

// decision maps the ACP outcome to Codex's answer. A cancelled outcome or a
// turn that has ended cancels; an unknown option declines.
func decision(ctx context.Context, resp acp.RequestPermissionResponse) string {
	if ctx.Err() != nil || resp.Outcome.Cancelled != nil || resp.Outcome.Selected == nil {
		return "cancel"
	}
	switch resp.Outcome.Selected.OptionId {
	case OptionAllowOnce:
		return "accept"
	case OptionAllowAlways:
		return "acceptForSession"
	default:
		return "decline"
	}
}

func (a *Agent) answerApproval(c *conn, id json.RawMessage, decision string) {
	if err := c.respond(id, approvalResponse{Decision: decision}); err != nil {
		a.log.Warn("answer codex approval", "err", err)
	}
}
