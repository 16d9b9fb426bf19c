package codex

import (
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// A Prompt's model and effort reach the model's request exactly, for that
// turn and the session's next one without them.
func TestPromptModelAndEffortReachTheModel(t *testing.T) {
	ctx := testCtx(t)
	script := scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "one")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "two")),
	)
	a, h := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := acpbridge.Prompt{Text: "first", Model: "other-model", Effort: "high"}
	if _, err := a.Prompt(ctx, id, p, &recorder{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt("second"), &recorder{}); err != nil {
		t.Fatal(err)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests: %d, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Model != "other-model" || r.Effort != "high" {
			t.Errorf("request %d: model %q effort %q, want other-model high", i+1, r.Model, r.Effort)
		}
	}
}

// model/list answers without the network, from Codex 0.171.0's own
// catalogue: eleven models, gpt-6.2-sol the default.
func TestModelsListsCodexModels(t *testing.T) {
	ctx := testCtx(t)
	a, _ := newAgent(t, scriptedmodel.Sequence(), scriptedmodel.HomeOptions{}, Options{})
	ms, err := a.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var defaults []string
	for _, m := range ms {
		if m.Default {
			defaults = append(defaults, m.ID)
		}
	}
	if len(ms) != 11 || len(defaults) != 1 || defaults[0] != "gpt-6.2-sol" || ms[0].Name != "GPT-6.2-Sol" {
		t.Fatalf("model/list: %d models, defaults %v, first %+v", len(ms), defaults, ms[0])
	}
}
