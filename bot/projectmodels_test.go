package bot_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// modelProjects adds projects.<name>.models and .model to the registry's
// Projects, as cmd/wecodex does (bot.ProjectModels).
type modelProjects struct{ registryProjects }

func (p modelProjects) Models(project string) []string {
	pr, _ := p.reg.Lookup(project)
	return pr.Settings.Models
}

func (p modelProjects) Model(project string) string {
	pr, _ := p.reg.Lookup(project)
	return pr.Settings.Model
}

// projectModelsRig is an engine on real Codex where alice may use two
// path projects: api (first, hers by default) offering gpt-5.5 and other
// with no model default, web offering gpt-6.2-sol alone, its default.
// agent.models offers gpt-5.5 alone. Threads get their project's model
// as cmd/wecodex gives it (projectThread). wrap makes the engine's
// Projects.
func projectModelsRig(t *testing.T, script sm.Script, wrap func(modelProjects) bot.Projects) *projectRig {
	t.Helper()
	h := codextest.StartWith(t, script, sm.HomeOptions{})
	root := filepath.Join(t.TempDir(), "workspaces")
	reg, err := projects.New([]projects.Project{
		{Name: "api", Path: t.TempDir(), Users: []string{"alice"}, Settings: projects.Settings{Models: []string{"gpt-5.5", "other"}}},
		{Name: "web", Path: t.TempDir(), Users: []string{"alice"}, Settings: projects.Settings{Model: "gpt-6.2-sol", Models: []string{"gpt-6.2-sol"}}},
	}, projects.Options{WorkspaceRoot: root, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	st := testenv.OpenStores(t, testenv.Prefix(t, "projmodels"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog(),
		Thread: func(cwd string) codex.ThreadSettings {
			_, p, _ := reg.ForDir(cwd)
			return codex.ThreadSettings{Model: p.Settings.Model}
		}})
	t.Cleanup(func() { _ = agent.Close() })
	chat := chattest.New()
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: root, UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, Projects: wrap(modelProjects{registryProjects{reg}}),
		Access: bot.Access{AllowUsers: []string{"alice"}},
		Models: bot.ModelConfig{Allowed: []string{"gpt-5.5"}, Default: func(ctx context.Context) (string, error) {
			ms, err := agent.Models(ctx)
			for _, m := range ms {
				if m.Default {
					return m.ID, nil
				}
			}
			return "", fmt.Errorf("no default model in %d (%v)", len(ms), err)
		}},
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)
	return &projectRig{h: h, st: st, reg: reg, chat: chat, e: e}
}

// A project's models replace agent.models: /model lists exactly them and
// refuses another. A model chosen in api is not run in web, whose list
// lacks it: after /project web, /status and /model say so and the next
// model request names web's default, not the choice; back in api the
// choice holds again.
func TestProjectModelsReplaceAgentModels(t *testing.T) {
	r := projectModelsRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "two")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "three")),
	), func(p modelProjects) bot.Projects { return p })
	dm := chattest.DM("alice")
	unset := "the project's default, else Codex's"
	for i, c := range []struct{ say, want string }{
		{"/model", "**Models** (▶ this conversation's)\n- `gpt-5.5`\n- `other`\n\nThis conversation uses " + unset + ".\n\n`/model <name>` picks one for this conversation."},
		{"/model gpt-6.2-sol", "`gpt-6.2-sol` is not offered here; pick one of `gpt-5.5`, `other`."},
		{"/model other", "Model set to `other` for this conversation: its next turn uses it."},
	} {
		if got := r.say(t, fmt.Sprint("m", i), dm, "alice", c.say); got != c.want {
			t.Errorf("%s in api = %q, want %q", c.say, got, c.want)
		}
	}
	r.turn(t, "t1", dm, "alice", "first")
	if got, want := r.say(t, "p1", dm, "alice", "/project web"), "OK — this conversation now works in `web`. The next message starts a fresh session there."; got != want {
		t.Fatalf("/project web = %q, want %q", got, want)
	}
	status := r.say(t, "s1", dm, "alice", "/status")
	if want := "\n- model: `other` (this conversation's, not offered here: its turns use " + unset + ")\n"; !strings.Contains(status, want) {
		t.Errorf("/status in web = %q, want it to say %q", status, want)
	}
	if got, want := r.say(t, "m9", dm, "alice", "/model"), "**Models** (▶ this conversation's)\n- `gpt-6.2-sol`\n\nThis conversation's `other` is not offered here: it uses "+unset+".\n\n`/model <name>` picks one for this conversation."; got != want {
		t.Errorf("/model in web = %q, want %q", got, want)
	}
	r.turn(t, "t2", dm, "alice", "second")
	if got, want := r.say(t, "p2", dm, "alice", "/project api"), "OK — this conversation now works in `api`. The next message starts a fresh session there."; got != want {
		t.Fatalf("/project api = %q, want %q", got, want)
	}
	r.turn(t, "t3", dm, "alice", "third")
	var got []string
	for _, req := range r.h.Server.ModelRequests() {
		got = append(got, req.Model)
	}
	if want := []string{"other", "gpt-6.2-sol", "other"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("model requests named %q, want %q", got, want)
	}
}
