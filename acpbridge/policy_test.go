package acpbridge_test

import (
	"context"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// codexOptions are the options Codex bridges offer for a command approval.
var codexOptions = []acp.PermissionOption{
	{Kind: acp.PermissionOptionKindAllowAlways, Name: "Always allow", OptionId: "allow_always"},
	{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
	{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"},
}

func permissionRequest(title string, options []acp.PermissionOption) acp.RequestPermissionRequest {
	return acp.RequestPermissionRequest{
		SessionId: "s1",
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "call_1", Title: acp.Ptr(title)},
		Options:   options,
	}
}

func outcome(r acp.RequestPermissionResponse) string {
	switch {
	case r.Outcome.Selected != nil:
		return "selected " + string(r.Outcome.Selected.OptionId)
	case r.Outcome.Cancelled != nil:
		return "cancelled"
	}
	return "none"
}

func TestPolicy(t *testing.T) {
	tests := []struct {
		approval string
		options  []acp.PermissionOption
		want     string
		notice   acpbridge.Notice
	}{
		{"allow", codexOptions, "selected allow", acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "approved: touch x"}},
		{"deny", codexOptions, "selected reject", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"", codexOptions, "selected reject", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"yes-please", codexOptions, "selected reject", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"allow", codexOptions[:1], "selected allow_always", acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "approved: touch x"}},
		{"deny", []acp.PermissionOption{{Kind: acp.PermissionOptionKindRejectAlways, Name: "Never", OptionId: "never"}}, "selected never", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"allow", codexOptions[2:], "cancelled", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "cancelled: touch x"}},
		{"deny", codexOptions[:2], "cancelled", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "cancelled: touch x"}},
	}
	for _, tt := range tests {
		req := permissionRequest("touch x", tt.options)
		resp := acpbridge.Policy(tt.approval)(context.Background(), req)
		if got := outcome(resp); got != tt.want {
			t.Errorf("Policy(%q) with %d options = %s; want %s", tt.approval, len(tt.options), got, tt.want)
		}
		if got := acpbridge.DecisionNotice(req, resp); got != tt.notice {
			t.Errorf("Policy(%q): notice %+v; want %+v", tt.approval, got, tt.notice)
		}
	}
}

func TestDecisionNoticeFallsBackToToolCallID(t *testing.T) {
	req := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallId: "call_9"}, Options: codexOptions}
	got := acpbridge.DecisionNotice(req, acpbridge.Selected("allow"))
	if want := (acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "approved: call_9"}); got != want {
		t.Errorf("notice %+v; want %+v", got, want)
	}
}
