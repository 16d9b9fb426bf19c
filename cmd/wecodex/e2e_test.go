package main

import (
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom/wecomsim"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// End-to-end tests: the built `wecodex serve` binary, the real Codex driven
// by a scripted model, a real Redis, and the WeCom simulator in WeCom's place.

const thinking = "⏳ Thinking…"

// One message delivered three times runs one turn: commentary folds into
// <think>, the answer is the body. Forged, oversized and unauthorised
// callbacks start nothing: the model sees exactly one request.
func TestE2ETurnDedupeAndRejects(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Checking the Makefile first."),
		sm.Message(sm.PhaseFinalAnswer, "Run `make test` to run every test."),
	)))
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)

	if err := b.sim.VerifyURL(ctx); err != nil {
		t.Fatalf("URL check: %v", err)
	}
	msg := wecomsim.Message{From: "alice", Text: "how do I run the tests?"}
	if _, err := b.sim.Send(ctx, msg, wecomsim.WithForgedSignature()); statusCode(err) != 401 {
		t.Fatalf("forged signature: %v, want HTTP 401", err)
	}
	if _, err := b.sim.Send(ctx, msg, wecomsim.WithBodySize(2<<20)); statusCode(err) != 413 {
		t.Fatalf("2 MiB body: %v, want HTTP 413", err)
	}
	refused, err := b.sim.Send(ctx, wecomsim.Message{From: "mallory", Text: "how do I run the tests?"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (wecomsim.Frame{ID: refused.ID, Finish: true,
		Content: "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."}); refused.First != want {
		t.Fatalf("not allowed: %+v, want %+v", refused.First, want)
	}

	s, err := b.sim.Send(ctx, msg, wecomsim.WithRedeliveries(2))
	if err != nil {
		t.Fatal(err)
	}
	if s.First != (wecomsim.Frame{ID: s.ID, Content: thinking}) {
		t.Fatalf("first frame %+v, want the thinking placeholder", s.First)
	}
	for i, f := range s.Redelivered {
		if f.ID != s.ID {
			t.Fatalf("redelivery %d opened stream %s, want the first one %s", i+1, f.ID, s.ID)
		}
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\nChecking the Makefile first.\n</think>\n\nRun `make test` to run every test."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model saw %d requests, want 1", n)
	}
	if code := b.stop(); code != 0 {
		t.Fatalf("serve exited %d; logs:\n%s", code, b.logs)
	}
	if strings.Contains(b.logs.String(), "how do I run the tests") {
		t.Errorf("a log line carries the message text:\n%s", b.logs)
	}
}
