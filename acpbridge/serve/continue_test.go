package serve_test

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// An agent that can load sessions, killed mid-turn, is restarted and the
// turn carries on: the session is reloaded in the new process and prompted
// once with the continuation prompt, whose model request has the first
// prompt in its history; the sink gets one line saying so and the
// continuation's answer. A second kill during the continuation fails the
// turn with one line.
func TestExternalAgentKilledMidTurnContinues(t *testing.T) {
	first, again := sm.NewGate(), sm.NewGate()
	t.Cleanup(first.Release)
	t.Cleanup(again.Release)
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{
		"first task":  {sm.Reply(sm.Message(sm.PhaseCommentary, "Starting the long job now.")).WithHold(2, first)},
		"second task": {sm.Reply(sm.Message(sm.PhaseCommentary, "Starting again.")).WithHold(2, again)},
		"Continue the unfinished work ": {
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Carried on.")),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "never")).WithHold(1, again),
		},
	}))
	h.AllowServerErrors() // the held requests die with the agent
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := startWecodexACP(t, ctx, h, external.Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}

	rec := &bridgetest.Recorder{}
	res := promptKilled(t, ctx, a, id, "Do the first task", rec, first)
	if res.err != nil || res.reason != acp.StopReasonEndTurn {
		t.Fatalf("continued turn = %q, %v; want its end", res.reason, res.err)
	}
	want := []string{
		"notice warning: " + acpbridge.NoticeContinuedCrashed,
		"message: Carried on.",
	}
	if got := answerKinds(rec); !slices.Equal(got[len(got)-2:], want) || countPrefix(got, "notice") != 1 {
		t.Errorf("continued turn\n got %q\nwant it to end with %q, one notice", got, want)
	}
	var cont *sm.Request
	for _, r := range h.Server.ModelRequests() {
		if r.UserText == acpbridge.ContinuationPrompt {
			cont = &r
		}
	}
	if cont == nil || !strings.Contains(string(cont.Body), "Do the first task") {
		t.Fatal("the continuation's model request is missing or lacks the first prompt in its history")
	}

	// The second task's continuation is killed too: one line.
	rec = &bridgetest.Recorder{}
	done := make(chan result, 1)
	go func() {
		r, err := a.Prompt(ctx, id, acpbridge.TextPrompt("Do the second task"), rec)
		done <- result{r, err}
	}()
	waitFor(t, ctx, again.Reached(), "the second task's stream to reach the gate")
	killAgent(t, a)
	waitForCond(t, ctx, "the continuation to reach the model", func() bool {
		n := 0
		for _, r := range h.Server.ModelRequests() {
			if r.UserText == acpbridge.ContinuationPrompt {
				n++
			}
		}
		return n == 2
	})
	killAgent(t, a)
	r := <-done
	const failed = "prompt: the agent process exited again while the interrupted work continued; send the message again"
	if r.err == nil || r.err.Error() != failed || acpbridge.KindOf(r.err) != acpbridge.KindCrashed {
		t.Fatalf("second fault = %v (kind %v), want %q (kind crashed)", r.err, acpbridge.KindOf(r.err), failed)
	}
}

type result struct {
	reason acp.StopReason
	err    error
}

// promptKilled prompts text and kills the agent once the model's stream
// reached gate.
func promptKilled(t *testing.T, ctx context.Context, a *external.Agent, id acp.SessionId, text string, rec *bridgetest.Recorder, gate *sm.Gate) result {
	t.Helper()
	done := make(chan result, 1)
	go func() {
		r, err := a.Prompt(ctx, id, acpbridge.TextPrompt(text), rec)
		done <- result{r, err}
	}()
	waitFor(t, ctx, gate.Reached(), "the model stream to reach the gate")
	killAgent(t, a)
	return <-done
}

func killAgent(t *testing.T, a *external.Agent) {
	t.Helper()
	pid := a.PID()
	if pid == 0 {
		t.Fatal("no agent process runs")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

func waitForCond(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s never happened", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
