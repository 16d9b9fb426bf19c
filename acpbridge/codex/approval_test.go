package codex

import (
	"context"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// choose answers every permission request with one option and keeps the
// requests it saw.
type choose struct {
	option acp.PermissionOptionId
	mu     sync.Mutex
	seen   []acp.RequestPermissionRequest
}

func (c *choose) decide(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	c.mu.Lock()
	c.seen = append(c.seen, req)
	c.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(c.option)}
}

func approvalScript() sm.Script {
	return sm.Sequence(
		sm.Reply(sm.EscalatedExecCommand("call_esc", "echo escalated-ran", "needs to run outside the sandbox")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Finished.")),
	)
}

func TestApprovalAllowed(t *testing.T) {
	ctx := testCtx(t)
	c := &choose{option: OptionAllowOnce}
	a, h := newAgent(t, approvalScript(), sm.HomeOptions{ApprovalPolicy: "on-request"}, Options{ApprovalPolicy: "on-request"})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{permit: c.decide}
	stop := promptSink(t, ctx, a, id, "Run it.", rec)
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if len(c.seen) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(c.seen))
	}
	req := c.seen[0]
	if req.SessionId != id || req.ToolCall.ToolCallId != "call_esc" || *req.ToolCall.Kind != acp.ToolKindExecute ||
		!strings.Contains(*req.ToolCall.Title, "echo escalated-ran") {
		t.Fatalf("permission request = session %q tool %q kind %q title %q", req.SessionId, req.ToolCall.ToolCallId, *req.ToolCall.Kind, *req.ToolCall.Title)
	}
	var kinds []string
	for _, o := range req.Options {
		kinds = append(kinds, string(o.OptionId)+"/"+string(o.Kind))
	}
	equalLines(t, "options", kinds, []string{"allow_once/allow_once", "allow_always/allow_always", "reject_once/reject_once"})

	out, ok := h.Server.ModelRequests()[1].CallOutput("call_esc")
	if !ok || !strings.Contains(out, "escalated-ran") {
		t.Fatalf("call output = %q, want the command to have run", out)
	}
	commandOutputOnce(t, rec, "call_esc", acp.ToolCallStatusCompleted, "escalated-ran\n")
	equalLines(t, "answer", only(rec.merged(), "message"), []string{"message[msg_resp_2_0] Finished."})
}

func TestApprovalDeclined(t *testing.T) {
	ctx := testCtx(t)
	c := &choose{option: OptionRejectOnce}
	a, h := newAgent(t, approvalScript(), sm.HomeOptions{ApprovalPolicy: "on-request"}, Options{ApprovalPolicy: "on-request"})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{permit: c.decide}
	promptSink(t, ctx, a, id, "Run it.", rec)
	if len(c.seen) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(c.seen))
	}
	out, _ := h.Server.ModelRequests()[1].CallOutput("call_esc")
	if strings.Contains(out, "escalated-ran") {
		t.Fatalf("declined command ran: call output %q", out)
	}
	if !strings.Contains(out, "rejected by user") {
		t.Fatalf("declined call output = %q, want Codex to report the rejection", out)
	}
	equalLines(t, "updates", only(rec.merged(), "tool_call", "message"), []string{
		`tool_call[call_esc] execute in_progress "/bin/bash -c 'echo escalated-ran'"`,
		"tool_call_update[call_esc] failed",
		"message[msg_resp_2_0] Finished.",
	})
}

// A sink wrapped in the deny policy is never asked: the request is
// declined, and the decision shows on the turn.
func TestApprovalDeniedByPolicyIsNoted(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, approvalScript(), sm.HomeOptions{ApprovalPolicy: "on-request"}, Options{ApprovalPolicy: "on-request"})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	c := &choose{option: OptionAllowOnce}
	rec := &recorder{permit: c.decide}
	promptSink(t, ctx, a, id, "Run it.", acpbridge.Policy(acpbridge.ApprovalDeny).Wrap(rec))
	if len(c.seen) != 0 {
		t.Fatalf("the wrapped sink was asked %d times; want never", len(c.seen))
	}
	out, _ := h.Server.ModelRequests()[1].CallOutput("call_esc")
	if strings.Contains(out, "escalated-ran") {
		t.Fatalf("command ran without approval: %q", out)
	}
	if !strings.Contains(out, "rejected by user") {
		t.Fatalf("declined call output = %q, want Codex to report the rejection", out)
	}
	want := "warning: declined: /bin/bash -c 'echo escalated-ran'"
	if indexOf(rec.noticeLines(), want) < 0 {
		t.Fatalf("notices %q lack %q", rec.noticeLines(), want)
	}
}
