package webhook_test

import (
	"slices"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
)

// Two replicas on one Redis: a message received by one is answered from the
// other's refreshes; while the owner lives only it takes the conversation;
// when it stops mid-queue the other takes the queue over with a fresh
// session and says so.
func TestTwoReplicasShareFramesAndTakeOver(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	a := newReplica(t, testenv.OpenStore(t, prefix), testConfig(t, "a"))
	b := newReplica(t, testenv.OpenStore(t, prefix), testConfig(t, "b"))
	a.run(t)

	first := receive(t, a.e, msg("m1", "alice", "block"))
	waitStarted(t, a.agent, "block")
	b.run(t) // only now, so the first message surely ran on a

	// A refresh on b is answered with a's frame.
	running := card{text: "block", status: cards.Running()}.render()
	waitFrame(t, b.e, first.StreamID, "a's running frame", func(f webhook.Frame) bool { return f.Content == running && !f.Finish })

	// Messages received by b wait behind a's turn; b does not take them
	// while a owns the conversation.
	second := receive(t, b.e, msg("m2", "alice", "second"))
	third := receive(t, b.e, msg("m3", "alice", "third"))
	if second.Content != "⏳ Queued (position 1) — waiting for the running turn to finish." ||
		third.Content != "⏳ Queued (position 2) — waiting for the running turn to finish." {
		t.Fatalf("queued frames: %q, %q", second.Content, third.Content)
	}
	// Replica a stops mid-queue.
	a.stop()
	got := waitFinished(t, b.e, first.StreamID).Content
	want := card{text: "block", after: []acpbridge.Notice{{Level: acpbridge.NoticeWarning, Text: "Stopped: the bot is shutting down. Send the message again to retry."}},
		status: cards.Status{State: cards.StateCancelled}}.render()
	if got != want {
		t.Fatalf("a's turn on shutdown:\n%q\nwant\n%q", got, want)
	}

	moved := acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available)."}
	if got, want := waitFinished(t, a.e, second.StreamID).Content, (card{before: []acpbridge.Notice{moved}, text: "second", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("second, taken over by b:\n%q\nwant\n%q", got, want)
	}
	if got, want := waitFinished(t, a.e, third.StreamID).Content, (card{text: "third", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("third:\n%q\nwant\n%q", got, want)
	}
	if p := a.agent.Prompts(); !slices.Equal(p, []string{"block"}) {
		t.Fatalf("a's prompts %q", p)
	}
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"second", "third"}) {
		t.Fatalf("b's prompts %q", p)
	}
	if n := b.agent.Sessions(); n != 1 {
		t.Fatalf("b started %d sessions, want 1", n)
	}
}

// /stop received by one replica stops the turn running on another.
func TestStopReachesAnotherReplica(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	a := newReplica(t, testenv.OpenStore(t, prefix), testConfig(t, "a"))
	b := newReplica(t, testenv.OpenStore(t, prefix), testConfig(t, "b"))
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
