package codex

import (
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

func TestTookEffect(t *testing.T) {
	for _, tt := range []struct {
		method               string
		answered, turnStated bool
		want                 bool
	}{
		{"thread/start", false, false, false},
		{"thread/start", true, false, true},
		{"thread/resume", false, false, false},
		{"thread/resume", true, false, true},
		{"turn/start", false, false, false},
		{"turn/start", true, false, false}, // answered, yet the turn never began
		{"turn/start", false, true, true},
		{"turn/start", true, true, true},
		{"turn/interrupt", false, false, true}, // never re-sent
		{"thread/loaded/list", false, false, true},
		{"thread/items/list", false, false, true},
	} {
		if got := tookEffect(tt.method, tt.answered, tt.turnStated); got != tt.want {
			t.Errorf("tookEffect(%s, answered %v, turn started %v) = %v, want %v",
				tt.method, tt.answered, tt.turnStated, got, tt.want)
		}
	}
}

// continuations counts the model requests of continuation turns.
func continuations(reqs []sm.Request) int {
	n := 0
	for _, r := range reqs {
		if r.UserText == continuationPrompt {
			n++
		}
	}
	return n
}

// prompted counts the model requests whose latest user message is text.
func prompted(reqs []sm.Request, text string) int {
	n := 0
	for _, r := range reqs {
		if r.UserText == text {
			n++
		}
	}
	return n
}

// Codex SIGSTOPped mid-turn while another user starts their first
// conversation: the watchdog kills and restarts it; bob's thread/start,
// sent to the frozen server, is sent again to the new one and his turn is
// answered; alice's turn resumes its thread there and continues in one
// turn, on the same sink, whose model request carries her prompt in its
// history. Waking the old process (it is gone) answers nothing twice.
func TestStoppedAppServerCostsNobodyTheirMessage(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	var restarts atomic.Int32 // the metrics callback: one restart, not the first start
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"alice question":                {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "this answer never ends")).WithHold(1, gate)},
		"Continue the unfinished work ": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Alice, carried on."))},
		"bob question":                  {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Bob's answer."))},
		"alice again":                   {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Again."))},
	}), sm.HomeOptions{}, Options{WatchdogInterval: 200 * time.Millisecond,
		OnRestart: func() { restarts.Add(1) }})
	// The production timeout, not a shorter one: a stopped Codex never
	// answers, whatever the timeout, but a new app-server starting on a
	// machine at load 20+ can take seconds to answer its first probe, and a
	// 2 s timeout killed it too.
	h.AllowServerErrors() // the killed Codex hangs up mid-stream
	idA, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := newChunkSignal()
	resA := promptInto(ctx, a, idA, "alice question", rec)
	<-rec.seen // the turn has begun and streams
	pid := a.appServerPid(t)
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resB := make(chan promptResult, 1)
	go func() {
		idB, err := a.NewSession(ctx, h.Workspace) // goes to the frozen server
		if err != nil {
			resB <- promptResult{err: err}
			return
		}
		resB <- <-promptAsync(ctx, a, idB, "bob question")
	}()

	rb := <-resB
	if rb.err != nil || rb.stop != acp.StopReasonEndTurn {
		t.Fatalf("bob = %q, %v; want his answer after the restart", rb.stop, rb.err)
	}
	equalLines(t, "bob", texts(rb.rec), []string{"message Bob's answer."})
	ra := <-resA
	if ra.err != nil || ra.stop != acp.StopReasonEndTurn {
		t.Fatalf("alice = %q, %v; want her turn continued to its end", ra.stop, ra.err)
	}
	equalLines(t, "alice", texts(ra.rec), []string{"message this", "message Alice, carried on."})
	equalLines(t, "alice's notices", ra.rec.noticeLines(), []string{"warning: " + noticeContinuedHung})

	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the stopped app-server %d still exists (%v)", pid, err)
	}
	_ = syscall.Kill(-pid, syscall.SIGCONT) // a woken old process must answer nothing
	gate.Release()
	// One more turn on the new server orders after anything the old one
	// could still have sent.
	if _, stop := prompt(t, ctx, a, idA, "alice again"); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}

	reqs := h.Server.ModelRequests()
	var cont *sm.Request
	for i := range reqs {
		if reqs[i].UserText == continuationPrompt {
			cont = &reqs[i]
		}
	}
	if cont == nil || !bodyHas(cont.Body, "alice question") {
		t.Fatalf("the continuation's model request is missing or lacks alice's prompt in its history")
	}
	if n := continuations(reqs); n != 1 {
		t.Errorf("%d continuation requests, want 1", n)
	}
	for _, p := range []string{"alice question", "bob question"} {
		if n := prompted(reqs, p); n != 1 {
			t.Errorf("the model was asked %q %d times, want once", p, n)
		}
	}
	if g := a.generation(); g != 2 {
		t.Fatalf("app-server generation = %d, want 2", g)
	}
	if n := restarts.Load(); n != 1 {
		t.Fatalf("OnRestart called %d times, want 1", n)
	}
	if len(rb.rec.notices) != 0 {
		t.Errorf("bob's notices = %q, want none: the fault was not his", rb.rec.noticeLines())
	}
}

// A turn/start sent to a frozen app-server (it never reported
// turn/started) is sent again to the new one and runs once; the card gets
// no continuation line, since nothing was interrupted.
func TestHeldTurnStartIsResentAndRunsOnce(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"first":      {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "First."))},
		"held start": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Ran once."))},
	}), sm.HomeOptions{}, Options{WatchdogInterval: 200 * time.Millisecond})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	// Codex writes a thread's rollout with its first turn; only then can a
	// new app-server resume it.
	prompt(t, ctx, a, id, "first")
	pid := a.appServerPid(t)
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGCONT) })
	rec, stop := prompt(t, ctx, a, id, "held start")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	equalLines(t, "answer", texts(rec), []string{"message Ran once."})
	if len(rec.notices) != 0 {
		t.Errorf("notices = %q, want none", rec.noticeLines())
	}
	if n := prompted(h.Server.ModelRequests(), "held start"); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
	if g := a.generation(); g != 2 {
		t.Fatalf("app-server generation = %d, want 2", g)
	}
}

// kill -9 of the app-server mid-turn: the turn continues on the new one and
// finishes. A second kill, during the continuation of the next turn, fails
// that turn with one line: one continuation per turn.
func TestKilledAppServerContinuesOnceThenFails(t *testing.T) {
	ctx := testCtx(t)
	first, second, again := sm.NewGate(), sm.NewGate(), sm.NewGate()
	for _, g := range []*sm.Gate{first, second, again} {
		t.Cleanup(g.Release)
	}
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"first job":  {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "never ends")).WithHold(1, first)},
		"second job": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "never ends either")).WithHold(1, second)},
		"Continue the unfinished work ": {
			sm.Reply(sm.Message(sm.PhaseCommentary, "Checking what is done."), sm.Message(sm.PhaseFinalAnswer, "Finished the first job.")),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "dies again")).WithHold(1, again),
		},
	}), sm.HomeOptions{}, Options{})
	h.AllowServerErrors() // each killed Codex hangs up mid-stream
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}

	rec := newChunkSignal()
	res := promptInto(ctx, a, id, "first job", rec)
	<-rec.seen // the turn has begun and streams
	a.killAppServer(t)
	r := <-res
	if r.err != nil || r.stop != acp.StopReasonEndTurn {
		t.Fatalf("first job = %q, %v; want it continued to its end", r.stop, r.err)
	}
	equalLines(t, "first job", texts(r.rec), []string{
		"message never", "thought Checking what is done.", "message Finished the first job.",
	})
	equalLines(t, "first job's notices", r.rec.noticeLines(), []string{"warning: " + noticeContinuedCrashed})

	rec = newChunkSignal()
	res = promptInto(ctx, a, id, "second job", rec)
	<-rec.seen
	a.killAppServer(t)
	<-again.Reached()
	a.killAppServer(t)
	r = <-res
	const want = "codex app-server exited again while the interrupted work continued; send the message again"
	if r.err == nil || r.err.Error() != want || acpbridge.KindOf(r.err) != acpbridge.KindCrashed ||
		!errors.Is(r.err, ErrAppServerExited) {
		t.Fatalf("second job error = %v (kind %v), want %q (kind crashed)", r.err, acpbridge.KindOf(r.err), want)
	}
	equalLines(t, "second job's notices", r.rec.noticeLines(), []string{"warning: " + noticeContinuedCrashed})
	reqs := h.Server.ModelRequests()
	if n := continuations(reqs); n != 2 {
		t.Errorf("%d continuation requests, want 2 (one per job)", n)
	}
	for _, p := range []string{"first job", "second job"} {
		if n := prompted(reqs, p); n != 1 {
			t.Errorf("the model was asked %q %d times, want once", p, n)
		}
	}
	if g := a.generation(); g != 3 { // a failed turn starts no new server
		t.Errorf("app-server generation = %d, want 3", g)
	}
	if strings.Contains(r.err.Error(), h.Workspace) {
		t.Errorf("error names the workspace: %v", r.err)
	}
}
