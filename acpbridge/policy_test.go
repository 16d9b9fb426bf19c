package acpbridge_test

import (
	"context"
	"slices"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
)

func permissionRequest(title string, options []acp.PermissionOption) acp.RequestPermissionRequest {
	return acp.RequestPermissionRequest{
		SessionId: "s1",
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "call_1", Title: acp.Ptr(title)},
		Options:   options,
	}
}

func TestPolicy(t *testing.T) {
	tests := []struct {
		approval string
		options  []acp.PermissionOption
		want     string
		notice   acpbridge.Notice
	}{
		{"allow", bridgetest.CodexOptions, "selected allow", acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "approved: touch x"}},
		{"deny", bridgetest.CodexOptions, "selected reject", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"", bridgetest.CodexOptions, "selected reject", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"yes-please", bridgetest.CodexOptions, "selected reject", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"allow", bridgetest.CodexOptions[:1], "selected allow_always", acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "approved: touch x"}},
		{"deny", []acp.PermissionOption{{Kind: acp.PermissionOptionKindRejectAlways, Name: "Never", OptionId: "never"}}, "selected never", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "declined: touch x"}},
		{"allow", bridgetest.CodexOptions[2:], "cancelled", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "cancelled: touch x"}},
		{"deny", bridgetest.CodexOptions[:2], "cancelled", acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "cancelled: touch x"}},
	}
	for _, tt := range tests {
		req := permissionRequest("touch x", tt.options)
		resp := acpbridge.Policy(tt.approval).Decide(req)
		if got := bridgetest.Outcome(resp); got != tt.want {
			t.Errorf("Policy(%q) with %d options = %s; want %s", tt.approval, len(tt.options), got, tt.want)
		}
		if got := acpbridge.DecisionNotice(req, resp); got != tt.notice {
			t.Errorf("Policy(%q): notice %+v; want %+v", tt.approval, got, tt.notice)
		}
	}
}

func TestDecisionNoticeFallsBackToToolCallID(t *testing.T) {
	req := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallId: "call_9"}, Options: bridgetest.CodexOptions}
	got := acpbridge.DecisionNotice(req, acpbridge.Selected("allow"))
	if want := (acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: "approved: call_9"}); got != want {
		t.Errorf("notice %+v; want %+v", got, want)
	}
}

// A wrapped sink is never asked: the policy answers, and its decision shows
// on the sink as a notice.
func TestPolicyWrapDecidesAndNotes(t *testing.T) {
	asked := 0
	rec := &bridgetest.Recorder{Permit: func(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		asked++
		return acpbridge.Selected("allow")
	}}
	sink := acpbridge.Policy(acpbridge.ApprovalDeny).Wrap(rec)
	resp := sink.RequestPermission(context.Background(), permissionRequest("touch x", bridgetest.CodexOptions))
	if got := bridgetest.Outcome(resp); got != "selected reject" {
		t.Errorf("outcome %s; want selected reject", got)
	}
	if asked != 0 {
		t.Errorf("the wrapped sink was asked %d times; want never", asked)
	}
	sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m1", "hi"))
	if got, want := rec.Lines(), []string{"notice warning: declined: touch x", "message: hi"}; !slices.Equal(got, want) {
		t.Errorf("sink got %q; want %q", got, want)
	}
}
