package acpbridge

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// Approval policies accepted by Policy (config key agent.approval).
const (
	ApprovalAllow = "allow"
	ApprovalDeny  = "deny"
)

// Policy returns the PermissionFunc for an agent.approval setting: "allow"
// picks the request's allow-once option, "deny" its reject-once option. Any
// other value denies, so a typo can never grant more than intended (configs
// validates the key before it gets here). Neither policy picks an "always"
// option while a "once" option exists, so a decision never outlives the
// request it answers.
func Policy(approval string) PermissionFunc {
	kinds := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	if approval == ApprovalAllow {
		kinds = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways}
	}
	return func(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		for _, kind := range kinds {
			for _, o := range req.Options {
				if o.Kind == kind {
					return Selected(o.OptionId)
				}
			}
		}
		// No option of the wanted kind: refuse to guess.
		return Cancelled()
	}
}

// Selected is the response that picks option id.
func Selected(id acp.PermissionOptionId) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Selected: &acp.RequestPermissionOutcomeSelected{OptionId: id, Outcome: "selected"},
	}}
}

// Cancelled is the response for a request answered without a decision (the
// turn was cancelled, or no option fits the policy).
func Cancelled() acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
		Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"},
	}}
}

// DecisionNotice is the line that shows a permission decision on the turn's
// card: "approved: <title>", "declined: <title>" or "cancelled: <title>".
func DecisionNotice(req acp.RequestPermissionRequest, resp acp.RequestPermissionResponse) Notice {
	title := string(req.ToolCall.ToolCallId)
	if req.ToolCall.Title != nil && *req.ToolCall.Title != "" {
		title = *req.ToolCall.Title
	}
	verb := "cancelled"
	level := NoticeWarning
	if s := resp.Outcome.Selected; s != nil {
		verb = "declined"
		for _, o := range req.Options {
			if o.OptionId != s.OptionId {
				continue
			}
			switch o.Kind {
			case acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways:
				verb, level = "approved", NoticeInfo
			}
		}
	}
	return Notice{Level: level, Text: verb + ": " + title}
}

// Answered makes a response safe to send: acp-go-sdk marshals an outcome with
// neither variant set as nothing at all, which the peer cannot parse.
func Answered(resp acp.RequestPermissionResponse) acp.RequestPermissionResponse {
	if resp.Outcome.Selected == nil && resp.Outcome.Cancelled == nil {
		return Cancelled()
	}
	return resp
}
