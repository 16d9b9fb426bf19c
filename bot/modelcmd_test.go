package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// modelRig is one engine on real Codex whose /model offers allowed (none:
// Codex's model/list).
func modelRig(t *testing.T, script sm.Script, allowed []string) *projectRig {
	t.Helper()
	h := codextest.StartWith(t, script, sm.HomeOptions{})
	st := testenv.OpenStores(t, testenv.Prefix(t, "botmodels"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	t.Cleanup(func() { _ = agent.Close() })
	list := func(ctx context.Context) ([]string, error) {
		ms, err := agent.Models(ctx)
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids, err
	}
	chat := chattest.New()
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: t.TempDir(), UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access: bot.Access{AllowUsers: []string{"alice"}},
		Models: bot.ModelConfig{List: list, Allowed: allowed},
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)
	return &projectRig{h: h, st: st, chat: chat, e: e}
}

// /model and /effort answer without reaching the model; what they set
// names the model's next requests exactly, and /status says so. A model
// outside agent.models is refused, saying which may be picked.
func TestModelAndEffortCommands(t *testing.T) {
	r := modelRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "two")),
	), []string{"gpt-5.5", "other"})
	dm := chattest.DM("alice")
	for i, c := range []struct{ say, want string }{
		{"/model", "**Models** (▶ this conversation's)\n- `gpt-5.5`\n- `other`\n\nThis conversation uses Codex's default.\n\n`/model <name>` picks one for this conversation."},
		{"/model gpt-6.2-sol", "`gpt-6.2-sol` is not offered here; pick one of `gpt-5.5`, `other`."},
		{"/model other", "Model set to `other` for this conversation: its next turn uses it."},
		{"/effort", "Reasoning effort: Codex's default. `/effort <level>` picks one of `low`, `medium`, `high`."},
		{"/effort max", "`max` is not an effort here; pick one of `low`, `medium`, `high`."},
		{"/model", "**Models** (▶ this conversation's)\n- `gpt-5.5`\n- ▶ `other`\n\n`/model <name>` picks one for this conversation."},
	} {
		if got := r.say(t, fmt.Sprint("m", i), dm, "alice", c.say); got != c.want {
			t.Errorf("%s = %q, want %q", c.say, got, c.want)
		}
	}
	r.turn(t, "t1", dm, "alice", "first")
	if got, want := r.say(t, "e1", dm, "alice", "/effort HIGH"), "Reasoning effort set to `high` for this conversation: its next turn uses it."; got != want {
		t.Errorf("/effort HIGH = %q, want %q", got, want)
	}
	r.turn(t, "t2", dm, "alice", "second")
	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests: %d, want 2 (no command reaches the model)", len(reqs))
	}
	if reqs[0].Model != "other" || reqs[0].Effort == "high" || reqs[1].Model != "other" || reqs[1].Effort != "high" {
		t.Errorf("requests: (%q, %q), (%q, %q); want other then other with high", reqs[0].Model, reqs[0].Effort, reqs[1].Model, reqs[1].Effort)
	}
	status := r.say(t, "s1", dm, "alice", "/status")
	if want := "\n- model: `other` (this conversation's)\n- effort: `high` (this conversation's)\n- mode: `workspace` (the default)"; !strings.HasSuffix(status, want) {
		t.Errorf("/status = %q, want it to end %q", status, want)
	}
}

// Without agent.models, /model offers what Codex's model/list returns.
func TestModelListsCodexModels(t *testing.T) {
	r := modelRig(t, sm.Sequence(), nil)
	got := r.say(t, "m1", chattest.DM("alice"), "alice", "/model")
	if !strings.HasPrefix(got, "**Models** (▶ this conversation's)\n- `gpt-6.2-sol`\n- `gpt-6.2-astra`\n") || strings.Count(got, "\n- `") != 11 {
		t.Errorf("/model = %q, want Codex's eleven models", got)
	}
}

// What /model, /effort and /mode choose is the conversation's in Redis,
// not a replica's: chosen on replica-b, it is what replica-a's turn asks
// Codex for (model, effort, read-only sandbox), and a replica started
// afterwards (a restart) reports it on /status.
func TestChoicesHoldOnEveryReplica(t *testing.T) {
	r := newControlRig(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one"))), bot.BusyQueue)
	dm := chattest.DM("alice")
	for i, c := range []struct{ say, want string }{
		{"/model other", "Model set to `other` for this conversation: its next turn uses it."},
		{"/effort high", "Reasoning effort set to `high` for this conversation: its next turn uses it."},
		{"/mode read-only", "Mode set to `read-only` for this conversation: the agent may look, not change: its commands cannot write the workspace, and no request to leave the sandbox is granted. Its next turn runs in it."},
	} {
		if got := say(t, r.b, fmt.Sprint("c", i), dm, "alice", c.say); got != c.want {
			t.Errorf("%s on replica-b = %q, want %q", c.say, got, c.want)
		}
	}
	say(t, r.b, "t1", dm, "alice", "first")
	r.chat.WaitForCount(t, dm, "finish", 1)
	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 1 || reqs[0].Model != "other" || reqs[0].Effort != "high" || reqs[0].Permissions() != "read-only" {
		t.Fatalf("replica-a's turn asked %d requests, the first %q at %q in %q", len(reqs), reqs[0].Model, reqs[0].Effort, reqs[0].Permissions())
	}
	r.leaseFree(t, dm)
	status := say(t, r.engine("replica-c"), "s1", dm, "alice", "/status")
	if want := "\n- model: `other` (this conversation's)\n- effort: `high` (this conversation's)\n- mode: `read-only` (this conversation's)"; !strings.HasSuffix(status, want) {
		t.Errorf("/status on a replica started later = %q, want it to end %q", status, want)
	}
}
