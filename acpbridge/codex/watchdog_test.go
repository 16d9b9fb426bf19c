package codex

import (
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
)

// Codex SIGSTOPped mid-turn: the watchdog kills and restarts it; the held
// turn fails with one line; another conversation's prompt, sent while Codex
// is stopped, is answered by the new app-server; the first conversation's
// next message works with its history.
func TestWatchdogRestartsStoppedAppServer(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	var restarts atomic.Int32 // the metrics callback: one restart, not the first start
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"held": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "this answer never ends")).WithHold(1, gate)},
		"other": {
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Other first answer.")),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Other answer.")),
		},
		"again": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Back with history."))},
	}), sm.HomeOptions{}, Options{WatchdogInterval: 200 * time.Millisecond,
		OnRestart: func() { restarts.Add(1) }})
	// The production timeout, not a shorter one: a stopped Codex never
	// answers, whatever the timeout, but a new app-server starting on a
	// machine at load 20+ can take seconds to answer its first probe, and a
	// 2 s timeout killed it too (the other conversation then failed).
	h.AllowServerErrors() // the killed Codex hangs up mid-stream
	idA, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	idB, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	// The other conversation has spoken before (Codex writes a thread's
	// rollout with its first turn; only then can a new app-server resume it).
	if _, stop := prompt(t, ctx, a, idB, "other first"); stop != acp.StopReasonEndTurn {
		t.Fatalf("other first stop = %q", stop)
	}
	rec := newChunkSignal()
	resA := promptInto(ctx, a, idA, "held question", rec)
	<-rec.seen // the turn has begun and streams
	pid := a.appServerPid(t)
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resB := promptAsync(ctx, a, idB, "other question")

	ra := <-resA
	const hung = "codex app-server stopped answering and was restarted; send the message again"
	if ra.err == nil || ra.err.Error() != hung || !errors.Is(ra.err, ErrAppServerHung) ||
		acpbridge.KindOf(ra.err) != acpbridge.KindCrashed {
		t.Fatalf("held turn error = %v, want %q (kind crashed)", ra.err, hung)
	}
	rb := <-resB
	if rb.err != nil || rb.stop != acp.StopReasonEndTurn {
		t.Fatalf("other conversation = %q, %v; want an answer after the restart", rb.stop, rb.err)
	}
	equalLines(t, "other", texts(rb.rec), []string{"message Other answer."})
	gate.Release()

	next, stop := prompt(t, ctx, a, idA, "again question")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	equalLines(t, "after restart", texts(next), []string{"message Back with history."})
	reqs := h.Server.ModelRequests()
	last := reqs[len(reqs)-1]
	if last.UserText != "again question" || !bodyHas(last.Body, "held question") {
		t.Fatalf("resumed conversation's request (user text %q) lacks its history", last.UserText)
	}
	if g := a.generation(); g != 2 {
		t.Fatalf("app-server generation = %d, want 2", g)
	}
	if n := restarts.Load(); n != 1 {
		t.Fatalf("OnRestart called %d times, want 1", n)
	}
	for _, r := range reqs {
		if r.UserText == "other question" && strings.Count(string(r.Body), "other question") > 1 {
			t.Fatalf("the other prompt reached the model twice in one request")
		}
	}
}

// A crash card says in one line what happened and what to do; the stderr
// tail (log lines, timestamps, the CODEX_HOME path) goes to the log at warn.
func TestCrashErrorIsOneLineAndStderrIsLogged(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	var logs testenv.LogBuffer
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "this answer never ends")).WithHold(1, gate),
	), sm.HomeOptions{}, Options{
		Env:    []string{"RUST_LOG=info"}, // Codex writes log lines to stderr
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	h.AllowServerErrors()
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	res := promptAsync(ctx, a, id, "Start.")
	<-gate.Reached()
	a.killAppServer(t)
	r := <-res
	const want = "codex app-server exited: signal: killed; send the message again"
	if r.err == nil || r.err.Error() != want || acpbridge.KindOf(r.err) != acpbridge.KindCrashed {
		t.Fatalf("Prompt error = %q, want %q (kind crashed)", r.err, want)
	}
	line := ""
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="codex app-server exited"`) {
			line = l
		}
	}
	if !strings.Contains(line, " level=WARN ") || !strings.Contains(line, `status="signal: killed"`) ||
		!strings.Contains(line, "stderr=") || strings.Contains(line, "stderr=\"\"") {
		t.Fatalf("exit log line = %q, want a warn line with the status and the stderr tail", line)
	}
}
