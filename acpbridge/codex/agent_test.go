package codex

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

func TestCommentaryThenFinalAnswer(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "I will inspect the workspace."),
		sm.Message(sm.PhaseFinalAnswer, "The workspace is empty."),
	)), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec, stop := prompt(t, ctx, a, id, "What is in the workspace?")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q, want end_turn", stop)
	}
	t.Logf("lines: %q", rec.lines())
	t.Logf("notices: %q", rec.noticeLines())
	equalLines(t, "chunks", only(rec.lines(), "thought", "message"), []string{
		"thought[msg_resp_1_0] I",
		"thought[msg_resp_1_0]  will",
		"thought[msg_resp_1_0]  inspect",
		"thought[msg_resp_1_0]  the",
		"thought[msg_resp_1_0]  workspace.",
		"message[msg_resp_1_1] The",
		"message[msg_resp_1_1]  workspace",
		"message[msg_resp_1_1]  is",
		"message[msg_resp_1_1]  empty.",
	})
}

func TestNullAndPartialAnswerPhasesAreAnswerText(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.Sequence(sm.Reply(
		sm.Message("partial_answer", "Half of it."),
		sm.Message("", "No phase at all."),
	)), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := prompt(t, ctx, a, id, "Answer without phases.")
	equalLines(t, "chunks", only(rec.merged(), "thought", "message"), []string{
		"message[msg_resp_1_0] Half of it.",
		"message[msg_resp_1_1] No phase at all.",
	})
}

func TestCommentaryCommandThenAnswerAcrossTwoRequests(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "Listing the workspace."),
			sm.ExecCommand("call_ls", "echo alpha; echo beta"),
		),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "There are two entries.")),
	), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec, stop := prompt(t, ctx, a, id, "List it.")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	// Codex streams the output of a 0 ms command or not, depending on the
	// machine: either way the client gets it once.
	equalLines(t, "updates", only(rec.merged(), "thought", "message", "tool_call["), []string{
		"thought[msg_resp_1_0] Listing the workspace.",
		`tool_call[call_ls] execute in_progress "/bin/bash -c 'echo alpha; echo beta'"`,
		"message[msg_resp_2_0] There are two entries.",
	})
	commandOutputOnce(t, rec, "call_ls", acp.ToolCallStatusCompleted, "alpha\nbeta\n")
	lines := rec.merged()
	if indexOf(lines, "message[msg_resp_2_0] There are two entries.") < indexOf(lines, only(lines, "tool_call_update[call_ls] completed")[0]) {
		t.Fatalf("answer before the command completed: %q", lines)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	if out, ok := reqs[1].CallOutput("call_ls"); !ok || !strings.Contains(out, "alpha\nbeta") {
		t.Fatalf("second request's call output = %q %v, want the command output", out, ok)
	}
}

func TestReasoningSummaryIsThought(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.Sequence(sm.Reply(
		sm.Reasoning("Weighing the options."),
		sm.Message(sm.PhaseFinalAnswer, "Option B."),
	)), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := prompt(t, ctx, a, id, "Which option?")
	equalLines(t, "chunks", only(rec.merged(), "thought", "message"), []string{
		"thought[rs_resp_1_0] Weighing the options.",
		"message[msg_resp_1_1] Option B.",
	})
}

func TestCodexWarningIsNeitherAnswerNorCard(t *testing.T) {
	ctx := testCtx(t)
	// A model Codex has no metadata for makes it warn on every turn: an
	// admin's matter (TestEnvironmentWarningsAreForAdmins), not the user's.
	a, h := newAgent(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseFinalAnswer, "Still answering."),
	)), sm.HomeOptions{Model: "wecodex-unknown-model"}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := prompt(t, ctx, a, id, "Hello?")
	equalLines(t, "chunks", only(rec.merged(), "thought", "message"), []string{
		"message[msg_resp_1_0] Still answering.",
	})
	for _, n := range rec.noticeLines() {
		if strings.Contains(n, "metadata") {
			t.Fatalf("environment warning on the card: %s", n)
		}
	}
	for _, l := range rec.lines() {
		if strings.Contains(l, "metadata") {
			t.Fatalf("warning leaked into an update: %s", l)
		}
	}
}
