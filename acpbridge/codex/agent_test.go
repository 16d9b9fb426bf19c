package codex

import (
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
