package webhook_test

import (
	"context"
	"slices"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
)

// Two replicas on one Redis: a message received by one is answered from the
// other's refreshes; while the owner lives only it takes the conversation;
// when it stops mid-turn and mid-queue, its turn is queued again first in
// line (the card says it runs again, the stream stays open), and the other
// takes the queue over with a fresh session and says so.
func TestTwoReplicasShareFramesAndTakeOver(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	a := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "a"))
	b := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "b"))
	a.run(t)

	first := receive(t, a.e, msg("m1", "alice", "gate:first"))
	waitStarted(t, a.agent, "gate:first")

	// A refresh on b is answered with a's frame.
	running := card{text: "gate:first", status: cards.Running()}.render()
	waitFrame(t, b.e, first.StreamID, "a's running frame", func(f webhook.Frame) bool { return f.Content == running && !f.Finish })

	// Messages received by b wait behind a's turn.
	second := receive(t, b.e, msg("m2", "alice", "second"))
	third := receive(t, b.e, msg("m3", "alice", "third"))
	if second.Content != "⏳ Queued (position 1) — waiting for the running turn to finish." ||
		third.Content != "⏳ Queued (position 2) — waiting for the running turn to finish." {
		t.Fatalf("queued frames: %q, %q", second.Content, third.Content)
	}
	// Replica a stops mid-turn, with no replica running to take its turn.
	a.stop()
	if f, _, err := b.e.Frame(context.Background(), first.StreamID, single("alice")); err != nil || f != (webhook.Frame{StreamID: first.StreamID, Content: requeued}) {
		t.Fatalf("a's turn on shutdown: %+v (%v), want the open frame %q", f, err, requeued)
	}

	b.run(t)
	waitStarted(t, b.agent, "gate:first")
	b.agent.release("first")
	moved := acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available)."}
	if got, want := waitFinished(t, a.e, first.StreamID).Content, (card{before: []acpbridge.Notice{moved}, text: "gate:first", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("first, re-run by b:\n%q\nwant\n%q", got, want)
	}
	for _, m := range []struct {
		f    webhook.Frame
		text string
	}{{second, "second"}, {third, "third"}} {
		if got, want := waitFinished(t, a.e, m.f.StreamID).Content, (card{text: m.text, withAnswer: true, status: done()}).render(); got != want {
			t.Fatalf("%s:\n%q\nwant\n%q", m.text, got, want)
		}
	}
	if p := a.agent.Prompts(); !slices.Equal(p, []string{"gate:first"}) {
		t.Fatalf("a's prompts %q", p)
	}
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"gate:first", "second", "third"}) {
		t.Fatalf("b's prompts %q", p)
	}
	if n := b.agent.Sessions(); n != 1 {
		t.Fatalf("b started %d sessions, want 1", n)
	}
}

// /stop received by one replica stops the turn running on another.
func TestStopReachesAnotherReplica(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	a := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "a"))
	b := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "b"))
	a.run(t)
	first := receive(t, a.e, msg("m1", "alice", "block"))
	waitStarted(t, a.agent, "block")
	b.run(t)
	if f := receive(t, b.e, msg("m2", "alice", "/stop")); f.Content != "OK — asked the running turn to stop." {
		t.Fatalf("/stop on b: %q", f.Content)
	}
	got := waitFinished(t, b.e, first.StreamID).Content
	want := card{text: "block", after: []acpbridge.Notice{{Level: acpbridge.NoticeInfo, Text: "Stopped with /stop."}},
		status: cards.Status{State: cards.StateCancelled}}.render()
	if got != want {
		t.Fatalf("stopped turn:\n%q\nwant\n%q", got, want)
	}
}
