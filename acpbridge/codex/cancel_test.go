package codex

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// stallingSink holds the connection's read loop inside its first Update
// until released: nothing Codex writes after that update (a turn/start or
// thread/resume response of another thread) reaches the Agent meanwhile. It
// breaks the Sink contract on purpose, to force an interleaving.
type stallingSink struct {
	recorder
	once     sync.Once
	stalled  chan struct{} // closed when the read loop is held
	released chan struct{}
}

func newStallingSink() *stallingSink {
	return &stallingSink{stalled: make(chan struct{}), released: make(chan struct{})}
}

func (s *stallingSink) Update(u acp.SessionUpdate) {
	s.once.Do(func() {
		close(s.stalled)
		<-s.released
	})
	s.recorder.Update(u)
}

// waitPendingCall waits until the Agent has a request to Codex in flight.
// It polls a condition (there is no event for it), never a fixed time.
func waitPendingCall(t *testing.T, ctx context.Context, a *Agent, method string) {
	t.Helper()
	a.mu.Lock()
	c := a.conn
	a.mu.Unlock()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %s request in flight", method)
		case <-time.After(time.Millisecond):
		}
	}
}

// stallReadLoop runs a turn on a thread of its own whose first update holds
// the read loop; it returns a func that lets it go.
func stallReadLoop(t *testing.T, ctx context.Context, a *Agent, cwd string) (release func()) {
	t.Helper()
	id, err := a.NewSession(ctx, cwd)
	if err != nil {
		t.Fatal(err)
	}
	s := newStallingSink()
	res := make(chan error, 1)
	go func() {
		_, err := a.Prompt(ctx, id, acpbridge.TextPrompt("stall the reader"), s)
		res <- err
	}()
	select {
	case <-s.stalled:
	case err := <-res:
		t.Fatalf("stalling turn ended before its first update: %v", err)
	case <-ctx.Done():
		t.Fatal("stalling turn sent no update")
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(s.released)
			if err := <-res; err != nil {
				t.Errorf("stalling turn: %v", err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

func waitPrompt(t *testing.T, ctx context.Context, res <-chan promptResult, what string) promptResult {
	t.Helper()
	select {
	case r := <-res:
		return r
	case <-ctx.Done():
		t.Fatalf("%s: Prompt never returned (the cancel was lost)", what)
		return promptResult{}
	}
}

// A Cancel that comes while turn/start is in flight, before the Agent has
// read Codex's answer, interrupts the turn once the answer gives its id.
func TestCancelBeforeTurnStartAnswerInterruptsTurn(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"stall the reader": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Reader released."))},
		"Please count":     {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one two three four")).WithHold(1, gate)},
		"Go on":            {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Going on."))},
	}), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	release := stallReadLoop(t, ctx, a, h.Workspace)
	res := promptAsync(ctx, a, id, "Please count.")
	waitPendingCall(t, ctx, a, "turn/start")
	if err := a.Cancel(ctx, id); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	release()
	// The held stream never finishes: only the interrupt ends the turn
	// (which Codex may stop before or after it asks the model).
	r := waitPrompt(t, ctx, res, "cancelled turn")
	if r.err != nil || r.stop != acp.StopReasonCancelled {
		t.Fatalf("Prompt = %q, %v; want cancelled, nil (updates %q)", r.stop, r.err, r.rec.lines())
	}
	for _, l := range only(r.rec.merged(), "message") {
		if l != "message[msg_resp_2_0] one" {
			t.Fatalf("cancelled turn streamed %q", l)
		}
	}
	gate.Release()
	rec, stop := prompt(t, ctx, a, id, "Go on.")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("next turn stop = %q", stop)
	}
	if got := only(rec.merged(), "message"); len(got) != 1 || !strings.HasSuffix(got[0], "] Going on.") {
		t.Fatalf("next turn = %q", got)
	}
}

// A Cancel that comes while the thread is being resumed (turn/start not
// sent yet) stops the turn before it starts: Codex never asks the model.
func TestCancelWhileResumingThreadNeverStartsTurn(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"first":            {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "First answer."))},
		"stall the reader": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Reader released."))},
	}), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, ctx, a, id, "first question")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// A second process on the same CODEX_HOME must resume the thread.
	b := agentOn(t, h, Options{})
	release := stallReadLoop(t, ctx, b, h.Workspace)
	res := promptAsync(ctx, b, id, "second question")
	waitPendingCall(t, ctx, b, "thread/resume")
	if err := b.Cancel(ctx, id); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	release()
	r := waitPrompt(t, ctx, res, "cancelled turn")
	if r.err != nil || r.stop != acp.StopReasonCancelled || len(r.rec.updates) != 0 {
		t.Fatalf("Prompt = %q, %v, updates %q; want cancelled, nil, none", r.stop, r.err, r.rec.lines())
	}
	var asked []string
	for _, req := range h.Server.ModelRequests() {
		asked = append(asked, req.UserText)
	}
	equalLines(t, "model requests", asked, []string{"first question", "stall the reader"})
	// Codex records a turn's user message once the turn starts, even one
	// interrupted at once: the history shows whether turn/start was sent.
	hist := &recorder{}
	if err := b.LoadSession(ctx, id, h.Workspace, hist); err != nil {
		t.Fatalf("LoadSession: %v", err)
	}
	var users []string
	for _, l := range only(hist.merged(), "user[") {
		users = append(users, l[strings.Index(l, "] ")+2:])
	}
	equalLines(t, "user messages in the thread", users, []string{"first question"})
}
