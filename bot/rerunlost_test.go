package bot_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
)

// errDead is every store call of a replica after killReplica: a killed
// process renews nothing, releases nothing and re-queues nothing.
var errDead = errors.New("this replica was killed")

// deadLeases is the queue of a replica that can be killed: after dead is
// set, the calls that would clean up after its turn fail.
type deadLeases struct {
	bot.Leases
	dead *atomic.Bool
}

func (d deadLeases) NextTurn(ctx context.Context, conv string, token int64, ttl time.Duration) ([]byte, bool, error) {
	if d.dead.Load() {
		return nil, false, errDead
	}
	return d.Leases.NextTurn(ctx, conv, token, ttl)
}
func (d deadLeases) RenewLease(ctx context.Context, conv string, token int64, ttl time.Duration) (bool, bool, error) {
	if d.dead.Load() {
		return false, false, errDead
	}
	return d.Leases.RenewLease(ctx, conv, token, ttl)
}
func (d deadLeases) RequeueTurn(ctx context.Context, conv string, token int64) (bool, error) {
	if d.dead.Load() {
		return false, errDead
	}
	return d.Leases.RequeueTurn(ctx, conv, token)
}
func (d deadLeases) ReleaseLease(ctx context.Context, conv string, token int64) (bool, error) {
	if d.dead.Load() {
		return false, errDead
	}
	return d.Leases.ReleaseLease(ctx, conv, token)
}

type deadReplicas struct {
	bot.Replicas
	dead *atomic.Bool
}

func (d deadReplicas) Heartbeat(ctx context.Context, replica string, ttl time.Duration) error {
	if d.dead.Load() {
		return errDead
	}
	return d.Replicas.Heartbeat(ctx, replica, ttl)
}

// killable is a replica with its own Codex and card channel, stopped as a
// killed process stops: no clean-up reaches Redis and its Codex is gone.
type killable struct {
	e    *bot.Engine
	chat *lostChat
	kill func()
}

// startKillable runs a replica on rig's Redis and Codex home, with leases
// and heartbeats short enough that a takeover comes within seconds.
func startKillable(t *testing.T, rig *mediaRig, replica string, rerun ...string) *killable {
	t.Helper()
	agent := codex.New(codex.Options{Bin: rig.h.Bin, Env: rig.h.CodexEnv(), Phases: rig.st, Logger: quietLog()})
	dead := new(atomic.Bool)
	st := testenv.EngineStore(rig.st)
	st.Queue = deadLeases{st.Queue, dead}
	st.Replicas = deadReplicas{st.Replicas, dead}
	chat := &lostChat{newCardChat("chat")}
	chat.requeue = true
	e, err := bot.New(bot.Config{
		LeaseTTL: 3 * time.Second, HeartbeatTTL: 3 * time.Second, PollInterval: 200 * time.Millisecond,
		Replica: replica, WorkspaceRoot: rig.root, UpdateInterval: time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"alice"}}, Logger: quietLog(),
		RerunOrphaned: strings.Join(rerun, ""),
	}, st, agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	var once atomic.Bool
	k := &killable{e: e, chat: chat, kill: func() {
		if once.Swap(true) {
			return
		}
		dead.Store(true)
		_ = agent.Close()
		cancel()
		<-done
	}}
	t.Cleanup(k.kill)
	return k
}

// lostChat is cardChat showing a card given to Show as it renders, so a
// test sees the words of a lost turn's card.
type lostChat struct{ *cardChat }

func (c *lostChat) Show(ctx context.Context, r bot.Reply) (bool, error) {
	if r.Card == nil {
		return c.cardChat.Show(ctx, r)
	}
	c.record("show %d %s: %s | %s", r.State, r.Conversation, r.Card.Stream(0, 0).Content, r.Card.Status())
	return true, nil
}

func (k *killable) say(t *testing.T, id, text string) {
	t.Helper()
	if _, err := k.e.Receive(t.Context(), alice(id, text)); err != nil {
		t.Fatal(err)
	}
}

const (
	textLostRerun = "the server running this turn stopped before it finished. It runs once more."
	textLostFinal = "❌ Failed: the server running this turn stopped before it finished. Send the message again."
)

// A message whose replica dies mid-turn runs once more on the replica that
// takes over, before the message sent after it, its card noting the loss.
// When the replica running it the second time dies too, the next one fails
// its card ("Send the message again") and goes on with the next message.
func TestLostMessageRunsOnceMore(t *testing.T) {
	gates := []*sm.Gate{sm.NewGate(), sm.NewGate(), sm.NewGate()}
	for _, g := range gates {
		t.Cleanup(g.Release)
	}
	rig := newMediaRig(t, sm.ByPrompt(map[string][]sm.Response{
		"a long task": {
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Never shown.")).WithHold(0, gates[0]),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done the second time.")),
		},
		"the next one": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Next answered."))},
		"doomed": {
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Never shown.")).WithHold(0, gates[1]),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Never shown either.")).WithHold(0, gates[2]),
		},
		"one more after": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Still here."))},
	}))
	rig.h.AllowServerErrors() // the held model streams break with their Codex

	// A dies running m1; B runs it again, then m2.
	a := startKillable(t, rig, "replica-a")
	a.say(t, "m1", "a long task")
	reached(t, gates[0])
	a.say(t, "m2", "the next one")
	b := startKillable(t, rig, "replica-b")
	a.kill()
	got := b.chat.waitFor(t, "final Next answered. | done")
	lostCard := "<think>\n⚠️ " + textLostRerun + "\n</think>\n\n"
	wantOrder(t, got, "show 2 single:alice: "+lostCard+" | running", "present single:alice: a long task")
	wantOrder(t, got, "final "+lostCard+"Done the second time. | done", "present single:alice: the next one")

	// B dies running m3; C runs it again and dies too; D fails its card
	// and runs m4.
	b.say(t, "m3", "doomed")
	reached(t, gates[1])
	b.say(t, "m4", "one more after")
	c := startKillable(t, rig, "replica-c")
	b.kill()
	reached(t, gates[2])
	c.chat.waitFor(t, "present single:alice: doomed")
	c.kill()
	if got, _ := c.chat.state(); containsPrefix(got, "present single:alice: one more after") {
		t.Fatalf("C ran the next message before the lost one; it showed %q", got)
	}
	d := startKillable(t, rig, "replica-d")
	got = d.chat.waitFor(t, "final Still here. | done")
	wantOrder(t, got, "show 3 single:alice: "+textLostFinal, "present single:alice: one more after")
	if n := len(rig.h.Server.ModelRequests()); n != 6 {
		t.Fatalf("%d model requests, want 6: m1 and m3 twice, m2 and m4 once", n)
	}
}

// With agent.rerun_orphaned: never, the replica that takes over fails the
// lost message's card at once and goes on with the next message.
func TestLostMessageNotRunAgainWhenNever(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	rig := newMediaRig(t, sm.ByPrompt(map[string][]sm.Response{
		"a long task":  {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Never shown.")).WithHold(0, gate)},
		"the next one": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Next answered."))},
	}))
	rig.h.AllowServerErrors()
	a := startKillable(t, rig, "replica-a", bot.RerunNever)
	a.say(t, "m1", "a long task")
	reached(t, gate)
	a.say(t, "m2", "the next one")
	b := startKillable(t, rig, "replica-b", bot.RerunNever)
	a.kill()
	got := b.chat.waitFor(t, "final Next answered. | done")
	wantOrder(t, got, "show 3 single:alice: "+textLostFinal, "present single:alice: the next one")
	if containsPrefix(got, "present single:alice: a long task") {
		t.Fatalf("B ran the lost message again; it showed %q", got)
	}
}

func reached(t *testing.T, g *sm.Gate) {
	t.Helper()
	select {
	case <-g.Reached():
	case <-time.After(2 * time.Minute): // a hang guard, not a speed limit
		t.Fatal("the model stream never reached the gate")
	}
}

func containsPrefix(s []string, prefix string) bool {
	for _, e := range s {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}

// wantOrder fails unless an event starting with first comes before one
// starting with then.
func wantOrder(t *testing.T, events []string, first, then string) {
	t.Helper()
	i, j := -1, -1
	for k, e := range events {
		if i < 0 && strings.HasPrefix(e, first) {
			i = k
		}
		if j < 0 && strings.HasPrefix(e, then) {
			j = k
		}
	}
	if i < 0 || j < 0 || i > j {
		t.Fatalf("want %q before %q; events %q", first, then, events)
	}
}
