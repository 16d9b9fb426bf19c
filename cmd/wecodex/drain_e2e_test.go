package main

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"syscall"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Rolling deploys: SIGTERM drains a replica instead of cancelling its turns.

// handedOver is the engine's line once it takes no new turns and its
// heartbeat is gone.
const handedOver = "handed over: taking no new turns; other replicas take this replica's conversations"

// requeued is the whole frame of a message whose turn a shutting-down
// replica cancelled and queued again.
const requeued = "⏳ The server running this turn is restarting: the message is queued again and starts over on another server in a moment."

// SIGTERM with a turn running on A, a message queued behind it and B up: A
// takes nothing more, hands its conversations over (B answers a message of
// a conversation A owns while A still drains, which it could not while A's
// heartbeat lived), lets the running turn finish with its whole answer,
// leaves the queued message to B and exits by itself, well before
// server.drain_timeout (5m here: reaching it would cancel the turn).
func TestE2EDrainFinishesTurnsAndHandsOver(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.ByPrompt(map[string][]sm.Response{
		"bob one": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Bob's first answer."))},
		"bob two": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Bob's second answer."))},
		"alice one": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Working on it."),
			sm.Message(sm.PhaseFinalAnswer, "The whole first answer, every word of it."),
		).WithHold(3, gate)},
		"alice two": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "The queued answer."))},
	}))
	e.drainTimeout = "5m"
	a := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)

	// A alone, so A surely runs these and owns both conversations.
	bob1, err := a.sim.Send(ctx, wecomtest.Message{From: "bob", Text: "bob one"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, a.sim, bob1.ID); last.Content != "Bob's first answer." {
		t.Fatalf("bob's first turn:\n%s\nframes seen: %q", last.Content, seen)
	}
	alice1 := sendUntilGate(t, ctx, a.sim, wecomtest.Message{From: "alice", Text: "alice one"}, gate)
	waitForFrame(t, ctx, a.sim, alice1.ID, "Working on it.")
	b := e.serve(t, "5m30s")
	alice2, err := a.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "alice two"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (wecomtest.Frame{ID: alice2.ID, Content: "⏳ Queued (position 1) — waiting for the running turn to finish."}); alice2.First != want {
		t.Fatalf("alice's second message: %+v, want %+v", alice2.First, want)
	}

	a.signal(t, syscall.SIGTERM)
	a.logs.waitFor(t, ctx, handedOver, nil)
	// Draining, A tells the load balancer to go elsewhere...
	code, body := get(t, a.base+"/readyz")
	var ready readyzBody
	if err := json.Unmarshal([]byte(body), &ready); err != nil || code != 503 || ready.Ready ||
		!maps.Equal(ready.Problems, map[string]string{"draining": "this server is shutting down: it finishes its running turns and takes no new ones; the other replicas take its messages"}) {
		t.Fatalf("/readyz while draining: %d %s (%v)", code, body, err)
	}
	// ...but still answers callbacks; the message waits for B.
	bob2, err := a.sim.Send(ctx, wecomtest.Message{From: "bob", Text: "bob two"})
	if err != nil {
		t.Fatal(err)
	}
	// One WeCom: B's refreshes come from each message's sender.
	for _, s := range []*wecomtest.Stream{alice1, alice2, bob2} {
		b.sim.Adopt(s)
	}
	if last, seen := follow(t, ctx, b.sim, bob2.ID); !onOtherReplica(last.Content, "Bob's second answer.") {
		t.Fatalf("bob's second turn, while A drains:\n%s\nframes seen: %q", last.Content, seen)
	}

	gate.Release()
	last, seen := follow(t, ctx, b.sim, alice1.ID)
	if want := "<think>\nWorking on it.\n</think>\n\nThe whole first answer, every word of it."; last.Content != want {
		t.Fatalf("the turn running at SIGTERM:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if last, seen := follow(t, ctx, b.sim, alice2.ID); !onOtherReplica(last.Content, "The queued answer.") {
		t.Fatalf("the queued turn:\n%s\nframes seen: %q", last.Content, seen)
	}
	if code := a.waitExit(t, ctx); code != 0 {
		t.Fatalf("A exited %d; logs:\n%s", code, a.logs)
	}

	// Who ran what: A ran bob's first and alice's first turn, B the rest.
	ran := func(p *botProc, s *wecomtest.Stream) bool {
		return len(p.logs.withMsg("turn started", map[string]any{"stream": s.ID})) == 1
	}
	for _, c := range []struct {
		name string
		s    *wecomtest.Stream
		onA  bool
	}{{"bob one", bob1, true}, {"alice one", alice1, true}, {"bob two", bob2, false}, {"alice two", alice2, false}} {
		if ran(a, c.s) != c.onA || ran(b, c.s) == c.onA {
			t.Errorf("%s: ran on A %v, on B %v; want only on %s", c.name, ran(a, c.s), ran(b, c.s), map[bool]string{true: "A", false: "B"}[c.onA])
		}
	}
	if got := a.logs.withMsg("drained", nil); len(got) != 1 {
		t.Errorf("A logged %d \"drained\" lines, want 1; logs:\n%s", len(got), a.logs)
	}
	if got := a.logs.withMsg("re-queued a turn cut short by the shutdown", nil); len(got) != 0 {
		t.Errorf("A re-queued turns it should have let finish: %v", got)
	}
	assertEachPromptOnce(t, e, "bob one", "bob two", "alice one", "alice two")
}

// SIGTERM with server.drain_timeout 2s and a turn that outlasts it: the
// turn is cancelled and its message queued again, the card says it will run
// again (never "send it again"), the process exits, and the restarted
// process runs the message to its end. The model sees the prompt exactly
// twice (the cut-short run and the re-run, which the drain implies) and the
// card shows the answer once.
func TestE2EDrainTimeoutRequeues(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.Sequence(
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "Working on it."),
			sm.Message(sm.PhaseFinalAnswer, "Never finished."),
		).WithHold(3, gate),
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "Starting over."),
			sm.Message(sm.PhaseFinalAnswer, "Finished after the restart."),
		),
	))
	e.h.AllowServerErrors() // the held stream ends when Codex interrupts the turn
	e.drainTimeout = "2s"
	a := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)

	s := sendUntilGate(t, ctx, a.sim, wecomtest.Message{From: "alice", Text: "a long task"}, gate)
	waitForFrame(t, ctx, a.sim, s.ID, "Working on it.")
	a.signal(t, syscall.SIGTERM)
	if code := a.waitExit(t, ctx); code != 0 {
		t.Fatalf("serve exited %d after the drain; logs:\n%s", code, a.logs)
	}
	a.logs.waitFor(t, ctx, "drain timed out; cancelling the turns still running and re-queueing their messages", nil)
	a.logs.waitFor(t, ctx, "re-queued a turn cut short by the shutdown", map[string]any{"stream": s.ID})

	// Nothing runs the message now: the card says it will run again.
	if got := storedFrame(t, e, s.ID); got != requeued {
		t.Fatalf("card after the drain: %q, want %q", got, requeued)
	}
	restarted := e.serve(t, "5m30s")
	restarted.sim.Adopt(s)
	last, seen := follow(t, ctx, restarted.sim, s.ID)
	if want := "<think>\nStarting over.\n</think>\n\nFinished after the restart."; last.Content != want {
		t.Fatalf("re-run turn:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	for _, f := range seen {
		if l := strings.ToLower(f); strings.Contains(l, "again to retry") || strings.Contains(l, "send the message again") || strings.Contains(l, "send it again") {
			t.Errorf("a frame asks the user to resend: %q", f)
		}
	}
	reqs := e.h.Server.ModelRequests()
	if len(reqs) != 2 || reqs[0].UserText != "a long task" || reqs[1].UserText != "a long task" {
		t.Fatalf("model requests %d (%q), want the prompt twice: the cut-short run and the re-run", len(reqs), userTexts(reqs))
	}
	if n := len(restarted.logs.withMsg("turn started", map[string]any{"stream": s.ID})); n != 1 {
		t.Errorf("the restarted process started the turn %d times, want 1", n)
	}
}

// A second signal while draining (SIGINT here, Ctrl-C in a terminal; a
// second SIGTERM does the same) stops at once: the turn is cancelled and
// re-queued without waiting for server.drain_timeout (5m here, longer than
// this test may take), and the card says the message will run again.
func TestE2ESecondSignalStopsAtOnce(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Working on it."),
		sm.Message(sm.PhaseFinalAnswer, "Never finished."),
	).WithHold(3, gate)))
	e.h.AllowServerErrors() // the held stream ends when Codex interrupts the turn
	e.drainTimeout = "5m"
	a := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)

	s := sendUntilGate(t, ctx, a.sim, wecomtest.Message{From: "alice", Text: "a long task"}, gate)
	waitForFrame(t, ctx, a.sim, s.ID, "Working on it.")
	a.signal(t, syscall.SIGTERM)
	a.logs.waitFor(t, ctx, handedOver, nil)
	a.signal(t, syscall.SIGINT)
	if code := a.waitExit(t, ctx); code != 0 {
		t.Fatalf("serve exited %d after the second signal; logs:\n%s", code, a.logs)
	}
	a.logs.waitFor(t, ctx, "second signal: stopping now; re-queueing the turns still running", nil)
	a.logs.waitFor(t, ctx, "re-queued a turn cut short by the shutdown", map[string]any{"stream": s.ID})

	if got := storedFrame(t, e, s.ID); got != requeued {
		t.Fatalf("card after the second signal: %q, want %q", got, requeued)
	}
	if n := len(e.h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model saw %d requests, want 1", n)
	}
}

// onOtherReplica reports whether a card of a turn moved to another replica
// is exactly answer, or exactly answer after the note that the earlier
// session could not be resumed. Both happen with the shared CODEX_HOME:
// Codex refuses to resume a thread while the draining replica's app-server
// still has it loaded ("already has an active writer"), and resumes it once
// that app-server has closed, which races the other replica taking the
// message.
func onOtherReplica(card, answer string) bool {
	const note = "<think>\n⚠️ This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available).\n</think>\n\n"
	return card == answer || card == note+answer
}

// storedFrame reads a stream's frame from Redis, where every replica would
// answer WeCom's refresh from, while no serve process runs. It must be a
// frame still open (state waiting), so WeCom keeps refreshing until a
// replica runs the message again.
func storedFrame(t *testing.T, e *e2e, streamID string) string {
	t.Helper()
	state, _, _, content, ok, err := testenv.OpenStores(t, e.prefix).LoadFrame(context.Background(), streamID)
	if err != nil || !ok {
		t.Fatalf("load frame of %s: %v (found %v)", streamID, err, ok)
	}
	if state != "waiting" {
		t.Fatalf("stored frame of %s is %q (%s), want a waiting frame", streamID, content, state)
	}
	return content
}

// assertEachPromptOnce checks the model saw exactly these prompts, each once.
func assertEachPromptOnce(t *testing.T, e *e2e, prompts ...string) {
	t.Helper()
	got := userTexts(e.h.Server.ModelRequests())
	if len(got) != len(prompts) {
		t.Fatalf("model requests %q, want each of %q once", got, prompts)
	}
	for _, p := range prompts {
		n := 0
		for _, g := range got {
			if g == p {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the model saw %q %d times, want once (all requests %q)", p, n, got)
		}
	}
}

func userTexts(reqs []sm.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.UserText)
	}
	return out
}
