package webhook_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
)

// requeued is the whole frame of a turn the shutdown cut short and queued
// again.
const requeued = "⏳ The server running this turn is restarting: the message is queued again and starts over on another server in a moment."

var moved = acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available)."}

// Drain on a: a takes no new turn, not even the one queued behind its
// running turn; b takes a conversation a owns while a still drains (a's
// heartbeat is handed over, not left to lapse: with HeartbeatTTL an hour,
// b could not otherwise); a's running turn finishes with its answer; Drain
// returns once it has, and b runs the queued message.
func TestDrainFinishesTurnsAndHandsOver(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	cfgA, cfgB := testConfig(t, "a"), testConfig(t, "b")
	cfgA.HeartbeatTTL, cfgA.LeaseTTL = time.Hour, time.Hour
	a := newReplica(t, testenv.OpenStores(t, prefix), cfgA)
	b := newReplica(t, testenv.OpenStores(t, prefix), cfgB)
	a.run(t)

	hello := receive(t, a.e, msg("m1", "bob", "hello"))
	waitStarted(t, a.agent, "hello")
	if got, want := waitFinished(t, a.e, hello.StreamID).Content, (card{text: "hello", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("bob's first turn:\n%q\nwant\n%q", got, want)
	}
	one := receive(t, a.e, msg("m2", "alice", "gate:one"))
	waitStarted(t, a.agent, "gate:one")
	two := receive(t, a.e, msg("m3", "alice", "two"))
	if two.Content != "⏳ Queued (position 1) — waiting for the running turn to finish." {
		t.Fatalf("alice's second message: %q", two.Content)
	}
	b.run(t)

	// A drain with an ended context has begun when it returns, so bob's next
	// message cannot reach a before a stops taking turns; the second call
	// waits for a's turns to end.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.e.Drain(ended); err != context.Canceled {
		t.Fatalf("Drain with an ended context: %v, want context.Canceled", err)
	}
	drained := make(chan error, 1)
	go func() { drained <- a.e.Drain(context.Background()) }()
	again := receive(t, a.e, msg("m4", "bob", "again"))
	if got, want := waitFinished(t, a.e, again.StreamID).Content, (card{before: []acpbridge.Notice{moved}, text: "again", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("bob's message during a's drain, run by b:\n%q\nwant\n%q", got, want)
	}
	select {
	case err := <-drained:
		t.Fatalf("Drain returned %v while a's turn still runs", err)
	default:
	}

	a.agent.release("one")
	if got, want := waitFinished(t, b.e, one.StreamID).Content, (card{text: "gate:one", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("the turn running at the drain:\n%q\nwant\n%q", got, want)
	}
	if err := <-drained; err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if got, want := waitFinished(t, a.e, two.StreamID).Content, (card{before: []acpbridge.Notice{moved}, text: "two", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("the queued message, run by b:\n%q\nwant\n%q", got, want)
	}
	if p := a.agent.Prompts(); !slices.Equal(p, []string{"hello", "gate:one"}) {
		t.Fatalf("a's prompts %q", p)
	}
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"again", "two"}) {
		t.Fatalf("b's prompts %q", p)
	}
}

// A drain whose context ends first returns its error; the turn goes on
// until Run's context ends, then it is queued again, and the replica that
// comes next runs it.
func TestDrainTimeoutThenShutdownRequeues(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	a := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "a"))
	a.run(t)
	one := receive(t, a.e, msg("m1", "alice", "gate:one"))
	waitStarted(t, a.agent, "gate:one")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.e.Drain(ctx); err != context.Canceled {
		t.Fatalf("Drain with an ended context: %v, want context.Canceled", err)
	}
	// The turn still runs: its card shows it running, and only the end of
	// Run's context cuts it.
	running := card{text: "gate:one", status: cards.Running()}.render()
	waitFrame(t, a.e, one.StreamID, "running", func(f webhook.Frame) bool { return f.Content == running && !f.Finish })
	if p := a.agent.Prompts(); !slices.Equal(p, []string{"gate:one"}) {
		t.Fatalf("a's prompts %q", p)
	}
	a.stop()
	if f, _, err := a.e.Frame(context.Background(), one.StreamID, single("alice")); err != nil || f != (webhook.Frame{StreamID: one.StreamID, Content: requeued}) {
		t.Fatalf("cut turn: %+v (%v), want the open frame %q", f, err, requeued)
	}

	b := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "b"))
	b.run(t)
	waitStarted(t, b.agent, "gate:one")
	b.agent.release("one")
	if got, want := waitFinished(t, b.e, one.StreamID).Content, (card{before: []acpbridge.Notice{moved}, text: "gate:one", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("re-run:\n%q\nwant\n%q", got, want)
	}
	if p := a.agent.Prompts(); !slices.Equal(p, []string{"gate:one"}) {
		t.Fatalf("a's prompts %q", p)
	}
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"gate:one"}) {
		t.Fatalf("b's prompts %q", p)
	}
}
