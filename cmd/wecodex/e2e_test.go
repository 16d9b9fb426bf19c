package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
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
	msg := wecomtest.Message{From: "alice", Text: "how do I run the tests?"}
	if _, err := b.sim.Send(ctx, msg, wecomtest.WithForgedSignature()); statusCode(err) != 401 {
		t.Fatalf("forged signature: %v, want HTTP 401", err)
	}
	if _, err := b.sim.Send(ctx, msg, wecomtest.WithBodySize(2<<20)); statusCode(err) != 413 {
		t.Fatalf("2 MiB body: %v, want HTTP 413", err)
	}
	refused, err := b.sim.Send(ctx, wecomtest.Message{From: "mallory", Text: "how do I run the tests?"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (wecomtest.Frame{ID: refused.ID, Finish: true,
		Content: "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."}); refused.First != want {
		t.Fatalf("not allowed: %+v, want %+v", refused.First, want)
	}

	s, err := b.sim.Send(ctx, msg, wecomtest.WithRedeliveries(2))
	if err != nil {
		t.Fatal(err)
	}
	if s.First != (wecomtest.Frame{ID: s.ID, Content: thinking}) {
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

// /stop mid-turn cancels the running turn (the model stream is held at a
// gate so the turn is surely running), and the message sent meanwhile waits
// in the queue, then runs.
func TestE2EStopAndQueue(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.Sequence(
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "Reading the code first."),
			sm.Message(sm.PhaseFinalAnswer, "This answer never arrives."),
		).WithHold(4, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "The second answer.")),
	))
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)

	first := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "a long task"}, gate)
	waitForFrame(t, ctx, b.sim, first.ID, "Reading the code first.")
	second, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "a second task"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (wecomtest.Frame{ID: second.ID, Content: "⏳ Queued (position 1) — waiting for the running turn to finish."}); second.First != want {
		t.Fatalf("second message: %+v, want %+v", second.First, want)
	}
	stop, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "/stop"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (wecomtest.Frame{ID: stop.ID, Finish: true, Content: "OK — asked the running turn to stop."}); stop.First != want {
		t.Fatalf("/stop: %+v, want %+v", stop.First, want)
	}
	last, seen := follow(t, ctx, b.sim, first.ID)
	want := "<think>\nReading the code first.\n\nℹ️ Stopped with /stop.\n</think>\n\n⏹ Cancelled"
	if last.Content != want {
		t.Fatalf("stopped turn's final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	last, seen = follow(t, ctx, b.sim, second.ID)
	if want := "The second answer."; last.Content != want {
		t.Fatalf("queued turn's final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 2 {
		t.Fatalf("model saw %d requests, want 2", n)
	}
}

// Two serve processes share one Redis: the message goes to one, every
// refresh to the other, which answers from Redis.
func TestE2ETwoReplicas(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Looking around."),
		sm.Message(sm.PhaseFinalAnswer, "Served by any replica."),
	).WithDelay(20*time.Millisecond)))
	a := e.serve(t, "5m30s")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)

	s, err := a.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "hello replicas"})
	if err != nil {
		t.Fatal(err)
	}
	b.sim.Adopt(s) // one WeCom: b's refreshes come from the message's sender
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\nLooking around.\n</think>\n\nServed by any replica."
	if last.Content != want {
		t.Fatalf("final frame from the other replica:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model saw %d requests, want 1", n)
	}
}

// A stream window shorter than the turn closes the stream with a note; the
// rest of the answer arrives through response_url, and every word of the
// answer is shown exactly once across the two.
func TestE2EStreamWindowRollover(t *testing.T) {
	var words []string
	for i := 1; i <= 30; i++ {
		words = append(words, fmt.Sprintf("w%02d", i))
	}
	answer := strings.Join(words, " ")
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseFinalAnswer, answer),
	).WithDelay(100*time.Millisecond)))
	b := e.serve(t, "2s")
	ctx := within(t, 2*time.Minute)

	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "a slow answer"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	const note = "_(this reply is taking long: the rest of the answer follows in a separate message)_"
	if !strings.HasSuffix(last.Content, "\n\n"+note) {
		t.Fatalf("final frame does not end with the window note:\n%s\nframes seen: %q", last.Content, seen)
	}
	if _, err := e.urls.Wait(ctx, s.Message.MsgID, 1); err != nil {
		t.Fatal(err)
	}
	// Once serve has stopped, no further part can come.
	if code := b.stop(); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	posts := e.urls.Posts(s.Message.MsgID)
	if len(posts) != 1 || !posts[0].Accepted || posts[0].Message.MsgType != "markdown" {
		t.Fatalf("response_url posts: %+v, want one accepted markdown message", posts)
	}
	shown := strings.TrimSuffix(last.Content, note)
	rest := posts[0].Message.Markdown.Content
	both := shown + "\n" + rest
	for _, w := range words {
		if n := strings.Count(both, w); n != 1 {
			t.Errorf("%s shown %d times across the stream and the continuation, want once", w, n)
		}
	}
	// In order: what the stream showed, then the continuation.
	var got []string
	for _, f := range strings.Fields(both) {
		if len(f) == 3 && f[0] == 'w' {
			got = append(got, f)
		}
	}
	if strings.Join(got, " ") != answer {
		t.Errorf("answer words in order:\n%s\nwant:\n%s\nstream:\n%s\ncontinuation:\n%s", strings.Join(got, " "), answer, shown, rest)
	}
}

// A Codex crash mid-turn (its whole process group killed) costs the user
// nothing: the card says in one progress line that Codex restarted and the
// work continues, and the continuation's answer comes in the same card; the
// next message runs on the new app-server.
func TestE2ECodexCrash(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.Sequence(
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "Starting the work."),
			sm.Message(sm.PhaseFinalAnswer, "Never finished."),
		).WithHold(3, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Carried on after the crash.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Back after the crash.")),
	))
	e.h.AllowServerErrors() // the held stream dies with Codex
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)

	first := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "crash please"}, gate)
	groups := appServerGroups(b.cmd.Process.Pid)
	if len(groups) != 1 {
		t.Fatalf("serve has %d child process groups %v, want the one app-server", len(groups), groups)
	}
	if err := syscall.Kill(-groups[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, first.ID)
	if !strings.Contains(last.Content, "Codex stopped unexpectedly and was restarted; the work continues.") ||
		!strings.HasSuffix(last.Content, "\n\nCarried on after the crash.") || strings.Contains(last.Content, "Failed") {
		t.Fatalf("crashed turn's final frame does not carry on:\n%s\nframes seen: %q", last.Content, seen)
	}

	next, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "are you back?"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen = follow(t, ctx, b.sim, next.ID)
	if last.Content != "Back after the crash." {
		t.Fatalf("next turn's final frame:\n%s\nframes seen: %q", last.Content, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 3 {
		t.Fatalf("model saw %d requests, want 3 (the turn, its continuation, the next)", n)
	}
}

// With the AI bot configured, serve mounts the webhook and the playground,
// /readyz names the channel, and SIGTERM stops the engine and exits 0.
func TestServeMountsTheWebhookAndPlayground(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A logged-in CODEX_HOME: /readyz has no agent warning.
	codexHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(codexHome, "auth.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, fmt.Sprintf(`wecom:
  aibot:
    token: %s
    encoding_aes_key: %s
agent:
  codex:
    bin: %s
    home: %s
  workspace_root: %s
access:
  allow_users: [playground]
playground:
  enabled: true
`, e2eToken, e2eAESKey, self, codexHome, t.TempDir()))
	if code, body := get(t, base+"/readyz"); code != 200 || body != `{"ready":true,"channels":{"wecom_aibot":"webhook /wecom/aibot"}}`+"\n" {
		t.Errorf("/readyz = %d %s", code, body)
	}
	if code, body := get(t, base+"/wecom/aibot"); code != 400 || body != "Bad Request\n" {
		t.Errorf("GET /wecom/aibot without a query = %d %q, want 400", code, body)
	}
	if code, _ := get(t, base+"/playground"); code != 200 {
		t.Errorf("/playground = %d, want 200", code)
	}
	code, logs := stop()
	if code != 0 {
		t.Fatalf("serve exited %d after SIGTERM; logs: %v", code, logs)
	}
	var msgs []string
	for _, l := range logs {
		msgs = append(msgs, fmt.Sprint(l["level"], " ", l["msg"]))
	}
	for _, want := range []string{"INFO wecom aibot webhook", "INFO listening", "WARN aibot URL check rejected", "INFO stopped"} {
		if !slices.Contains(msgs, want) {
			t.Errorf("no %q in the logs:\n%s", want, strings.Join(msgs, "\n"))
		}
	}
}

// agent.kind acp: the same turn through an external ACP agent, here this
// binary's own `wecodex codex-acp` over stdio.
func TestE2EExternalACPAgent(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Asking through ACP."),
		sm.Message(sm.PhaseFinalAnswer, "Answered through ACP."),
	)))
	e.acp = true
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "hello acp"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	if want := "<think>\nAsking through ACP.\n</think>\n\nAnswered through ACP."; last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if code := b.stop(); code != 0 {
		t.Fatalf("serve exited %d; logs:\n%s", code, b.logs)
	}
}
