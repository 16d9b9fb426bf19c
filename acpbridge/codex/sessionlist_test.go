package codex

import (
	"slices"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// session/list lists the threads of one directory, newest first, titled by
// their first prompt; SessionModel says the model a turn chose.
func TestListSessionsAndSessionModel(t *testing.T) {
	ctx := testCtx(t)
	script := scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "one")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "two")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "three")),
	)
	a, _ := newAgent(t, script, scriptedmodel.HomeOptions{}, Options{})
	dir, other := t.TempDir(), t.TempDir()
	var ids []acp.SessionId
	for i, d := range []string{dir, other, dir} {
		id, err := a.NewSession(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		p := acpbridge.Prompt{Text: []string{"first\nmore", "elsewhere", "third"}[i]}
		if i == 2 {
			p.Model, p.Effort = "gpt-5.4", "low"
		}
		if _, err := a.Prompt(ctx, id, p, &recorder{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	resp, err := a.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range resp.Sessions {
		title := "<none>"
		if s.Title != nil {
			title = *s.Title
		}
		got = append(got, string(s.SessionId)+" "+s.Cwd+" "+title)
	}
	want := []string{string(ids[2]) + " " + dir + " third", string(ids[0]) + " " + dir + " first"}
	if !slices.Equal(got, want) {
		t.Errorf("sessions\n got %q\nwant %q", got, want)
	}
	var models []string
	for _, id := range []acp.SessionId{ids[0], ids[2]} {
		m, e, err := a.SessionModel(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m+" "+e)
	}
	// The first runs with the configured model, no effort chosen.
	if wantModels := []string{scriptedmodel.Model + " ", "gpt-5.4 low"}; !slices.Equal(models, wantModels) {
		t.Errorf("session models %q; want %q", models, wantModels)
	}
}
