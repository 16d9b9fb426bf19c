package codex

import (
	"slices"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// Each mode reaches Codex as its sandbox and approval policy, turn by turn,
// going back as well as forward; a turn with no mode keeps the last one.
func TestPromptModeReachesCodex(t *testing.T) {
	ctx := testCtx(t)
	modes := []acpbridge.Mode{acpbridge.ModeReadOnly, acpbridge.ModeFull, acpbridge.ModeWorkspace, ""}
	var replies []scriptedmodel.Response
	for range modes {
		replies = append(replies, scriptedmodel.Reply(scriptedmodel.Message("final_answer", "ok")))
	}
	a, h := newAgent(t, scriptedmodel.Sequence(replies...), scriptedmodel.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modes {
		if _, err := a.Prompt(ctx, id, acpbridge.Prompt{Text: "hi " + string(m), Mode: m}, &recorder{}); err != nil {
			t.Fatalf("mode %q: %v", m, err)
		}
	}
	var got []string
	for _, r := range h.Server.ModelRequests() {
		got = append(got, r.Permissions())
	}
	want := []string{"read-only", "danger-full-access, approval never", "workspace-write", "workspace-write"}
	if !slices.Equal(got, want) {
		t.Errorf("permissions per request\n got %q\nwant %q", got, want)
	}
}
