package bot_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// access.max_queued_per_user: one user's messages waiting in any
// conversation, taken by either replica, count against one bound in Redis.
// The one beyond it is refused with a line naming the limit and nothing of
// it is queued; another user is not held back by it; and once alice's
// messages have run she may send again. A message in line for a turn slot
// (agent.max_concurrent_turns) still waits, so it counts.
func TestMaxQueuedPerUserAcrossReplicas(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, sm.ScriptFunc(func(req *sm.Request) (sm.Response, error) {
		// A group's prompt names its sender first; the answer names the text.
		text := req.UserText[strings.LastIndex(req.UserText, "\n")+1:]
		r := sm.Reply(sm.Message(sm.PhaseFinalAnswer, "answer to: "+text))
		if text == "first" {
			r = r.WithHold(0, gate)
		}
		return r, nil
	}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "backlog"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	t.Cleanup(func() { _ = agent.Close() })
	chat := newMemChat("chat")
	root := t.TempDir()
	replica := func(name string) *bot.Engine {
		e, err := bot.New(bot.Config{
			LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
			Replica: name, WorkspaceRoot: root, UpdateInterval: time.Millisecond,
			PollInterval: 20 * time.Millisecond, MaxConcurrentTurns: 1, MaxQueuedPerUser: 2,
			Access: bot.Access{AllowUsers: []string{"*"}}, Logger: quietLog(),
		}, testenv.EngineStore(st), agent, chat)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	r1, r2 := replica("r1"), replica("r2")
	run(t, r1) // r2 only takes messages in: the count is Redis's, not a replica's
	ctx := t.Context()
	send := func(e *bot.Engine, id, user, kind, conv, text string) bot.Reply {
		t.Helper()
		rc, err := e.Receive(ctx, bot.Message{ID: id, Conversation: bot.Conversation{Kind: kind, ID: conv, Group: kind == "group"},
			User: user, Text: text, Channel: "chat"})
		if err != nil {
			t.Fatal(err)
		}
		return rc.Reply
	}
	send(r1, "m1", "alice", "single", "alice", "first")
	select {
	case <-gate.Reached():
	case <-time.After(time.Minute): // a hang guard, not a speed limit
		t.Fatal("the first turn never reached the model")
	}
	// The first runs; the next two wait: one in alice's queue, one in a
	// group's, in line for the replica's only turn slot.
	send(r1, "m2", "alice", "single", "alice", "second")
	send(r2, "m3", "alice", "group", "g1", "third")
	refused := send(r2, "m4", "alice", "group", "g2", "fourth")
	want := "You have 2 messages waiting already, the most one person may (access.max_queued_per_user). " +
		"This one was not queued: send it again once one of them has started."
	if refused.Text != want || refused.State != bot.ReplyFinished {
		t.Fatalf("alice's third waiting message was answered %q (state %d), want the finished refusal %q", refused.Text, refused.State, want)
	}
	if q, err := st.Queued(ctx, "group:g2"); err != nil || len(q) != 0 {
		t.Fatalf("group g2's queue holds %d items (%v) after the refusal, want none", len(q), err)
	}
	if r := send(r2, "b1", "bob", "group", "g2", "bob's"); r.Text != cards.ThinkingLine {
		t.Fatalf("bob's message in g2 was answered %q, want it queued", r.Text)
	}
	gate.Release()
	for _, answer := range []string{"final answer to: first | done", "final answer to: second | done",
		"final answer to: third | done", "final answer to: bob's | done"} {
		chat.waitFor(t, answer)
	}
	if n, err := st.Backlog(ctx, "alice"); err != nil || n != 0 {
		t.Fatalf("alice's backlog after her turns ran = %d %v, want 0", n, err)
	}
	send(r2, "m5", "alice", "group", "g2", "fifth")
	events := chat.waitFor(t, "final answer to: fifth | done")
	if slices.ContainsFunc(events, func(ev string) bool { return strings.Contains(ev, "fourth") }) {
		t.Fatalf("the refused message reached a turn: %q", events)
	}
	for _, r := range h.Server.ModelRequests() {
		if strings.HasSuffix(r.UserText, "fourth") {
			t.Fatal("the refused message reached the model")
		}
	}
}
