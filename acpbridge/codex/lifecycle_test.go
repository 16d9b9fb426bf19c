package codex

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/procgroup"
)

// killAppServer kills the running app-server the way a crash would.
func (a *Agent) killAppServer(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	c := a.conn
	a.mu.Unlock()
	if c == nil {
		t.Fatal("no app-server running")
	}
	_ = procgroup.Kill(c.cmd)
}

func (a *Agent) generation() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gen
}

type promptResult struct {
	rec  *recorder
	stop acp.StopReason
	err  error
}

func promptAsync(ctx context.Context, a *Agent, id acp.SessionId, text string) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		rec := &recorder{}
		stop, err := a.Prompt(ctx, id, acpbridge.TextPrompt(text), rec)
		ch <- promptResult{rec, stop, err}
	}()
	return ch
}

func TestCancelInterruptsMidStream(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one two three four five six")).WithHold(2, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Next turn.")),
	), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	res := promptAsync(ctx, a, id, "Count slowly.")
	<-gate.Reached()
	if err := a.Cancel(ctx, id); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	r := <-res
	if r.err != nil || r.stop != acp.StopReasonCancelled {
		t.Fatalf("Prompt = %q, %v; want cancelled, nil", r.stop, r.err)
	}
	for _, l := range only(r.rec.merged(), "message") {
		if strings.Contains(l, "three") {
			t.Fatalf("text past the hold point arrived: %s", l)
		}
	}
	gate.Release()
	rec, stop := prompt(t, ctx, a, id, "Go on.")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("next turn stop = %q", stop)
	}
	equalLines(t, "next turn", only(rec.merged(), "message"), []string{"message[msg_resp_2_0] Next turn."})
}

func TestPromptContextCancelInterruptsTurn(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one two three four")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Fresh turn.")),
	), sm.HomeOptions{}, Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithCancel(ctx)
	res := promptAsync(pctx, a, id, "Count.")
	<-gate.Reached()
	cancel()
	r := <-res
	if r.stop != acp.StopReasonCancelled || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Prompt = %q, %v; want cancelled, context.Canceled", r.stop, r.err)
	}
	gate.Release()
	// The next prompt waits for the interrupted turn to end, then runs.
	rec, stop := prompt(t, ctx, a, id, "Again.")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	equalLines(t, "next turn", only(rec.merged(), "message"), []string{"message[msg_resp_2_0] Fresh turn."})
}

func TestTwoConversationsStreamAtOnceThroughOneAppServer(t *testing.T) {
	ctx := testCtx(t)
	ga, gb := sm.NewGate(), sm.NewGate()
	t.Cleanup(ga.Release)
	t.Cleanup(gb.Release)
	a, h := newAgent(t, sm.ByPrompt(map[string][]sm.Response{
		"alpha": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Alpha is thinking."),
			sm.Message(sm.PhaseFinalAnswer, "Alpha answer here."),
		).WithHold(3, ga)},
		"beta": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Beta is thinking."),
			sm.Message(sm.PhaseFinalAnswer, "Beta answer here."),
		).WithHold(3, gb)},
	}), sm.HomeOptions{}, Options{})
	idA, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	idB, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	resA := promptAsync(ctx, a, idA, "alpha question")
	resB := promptAsync(ctx, a, idB, "beta question")
	// Both turns are mid-stream at the same time before either may finish.
	<-ga.Reached()
	<-gb.Reached()
	ga.Release()
	gb.Release()
	ra, rb := <-resA, <-resB
	if ra.err != nil || rb.err != nil {
		t.Fatalf("prompts: %v, %v", ra.err, rb.err)
	}
	// Response ids depend on which request reached the server first.
	ids := regexp.MustCompile(`resp_\d+`)
	norm := func(lines []string) []string {
		for i := range lines {
			lines[i] = ids.ReplaceAllString(lines[i], "resp_N")
		}
		return lines
	}
	equalLines(t, "alpha", norm(only(ra.rec.merged(), "thought", "message")), []string{
		"thought[msg_resp_N_0] Alpha is thinking.",
		"message[msg_resp_N_1] Alpha answer here.",
	})
	equalLines(t, "beta", norm(only(rb.rec.merged(), "thought", "message")), []string{
		"thought[msg_resp_N_0] Beta is thinking.",
		"message[msg_resp_N_1] Beta answer here.",
	})
	if g := a.generation(); g != 1 {
		t.Fatalf("app-server started %d times, want 1", g)
	}
}

func TestLoadSessionReplaysHistoryByPhase(t *testing.T) {
	ctx := testCtx(t)
	h := codextest.Start(t, sm.Sequence(
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "Looking around."),
			sm.Message(sm.PhaseFinalAnswer, "Found it."),
		),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Second answer.")),
	))
	first := agentOn(t, h, Options{})
	id, err := first.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, ctx, first, id, "Where is it?")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	// Another process on the same CODEX_HOME.
	second := agentOn(t, h, Options{})
	rec := &recorder{}
	if err := second.LoadSession(ctx, id, h.Workspace, rec); err != nil {
		t.Fatalf("LoadSession: %v", err)
	}
	uuid := regexp.MustCompile(`^user\[[0-9a-f-]{36}\] `)
	lines := rec.lines()
	if len(lines) > 0 && uuid.MatchString(lines[0]) {
		lines[0] = uuid.ReplaceAllString(lines[0], "user[ID] ")
	}
	equalLines(t, "replay", lines, []string{
		"user[ID] Where is it?",
		"thought[msg_resp_1_0] Looking around.",
		"message[msg_resp_1_1] Found it.",
	})
	if len(rec.notices) != 0 {
		t.Fatalf("replay notices = %q, want none", rec.noticeLines())
	}
	next, stop := prompt(t, ctx, second, id, "And then?")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	equalLines(t, "after load", only(next.merged(), "message"), []string{"message[msg_resp_2_0] Second answer."})
	if got := h.Server.ModelRequests()[1].InputTypes; indexOf(got, "message") < 0 {
		t.Fatalf("second request input %q carries no history", got)
	}
}

// With FailInterrupted, a turn the app-server's death cut off fails; the
// next message resumes the thread on a new app-server.
func TestAppServerKilledMidTurnThenNextPromptResumes(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "this answer never ends")).WithHold(2, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Back again.")),
	), sm.HomeOptions{}, Options{FailInterrupted: true})
	h.AllowServerErrors() // the killed Codex hangs up mid-stream
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	res := promptAsync(ctx, a, id, "Start.")
	<-gate.Reached()
	a.killAppServer(t)
	r := <-res
	if r.err == nil || !errors.Is(r.err, ErrAppServerExited) || !strings.HasPrefix(r.err.Error(), "codex app-server exited: ") {
		t.Fatalf("Prompt error = %v, want codex app-server exited", r.err)
	}
	t.Logf("Prompt error: %v", r.err)
	gate.Release()

	rec, stop := prompt(t, ctx, a, id, "Try again.")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	equalLines(t, "after restart", only(rec.merged(), "message"), []string{"message[msg_resp_2_0] Back again."})
	if g := a.generation(); g != 2 {
		t.Fatalf("app-server generation = %d, want 2", g)
	}
}
