package acpbridge

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// Approval policies that decide without asking anyone (config key
// agent.approval; its third value, ask, is the bot's and asks a person).
const (
	ApprovalAllow = "allow"
	ApprovalDeny  = "deny"
)

// Policy is an agent.approval setting that decides permission requests in
// place of a person: ApprovalAllow picks a request's allow-once option,
// anything else its reject-once option, so a typo can never grant more than
// intended (configs validates the key before it gets here). Neither picks an
// "always" option while a "once" option exists, so a decision never
// outlives the request it answers.
type Policy string

// Decide is p's answer to req; when req offers no option of the wanted kind
// it refuses to guess and answers Cancelled.
func (p Policy) Decide(req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	kinds := []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways}
	if p == ApprovalAllow {
		kinds = []acp.PermissionOptionKind{acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways}
	}
	for _, kind := range kinds {
		for _, o := range req.Options {
			if o.Kind == kind {
				return Selected(o.OptionId)
			}
		}
	}
	return Cancelled()
}

// Wrap returns s with p deciding its permission requests: s is never asked,
// and each decision shows on s as a notice (DecisionNotice).
func (p Policy) Wrap(s Sink) Sink { return decidingSink{Sink: s, policy: p} }

// decidingSink is a Sink whose permission requests a Policy decides.
type decidingSink struct {
	Sink
	policy Policy
}

func (d decidingSink) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	resp := d.policy.Decide(req)
	d.Notice(DecisionNotice(req, resp))
	return resp
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
