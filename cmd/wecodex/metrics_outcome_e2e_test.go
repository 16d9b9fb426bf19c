package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Each way a turn ends is counted under its own outcome on /metrics: a
// turn stopped with /stop is cancelled, one whose Codex died is failed (with
// agent.codex.continue_interrupted off; the app-server's restart is
// counted), and the next one finishes.
func TestE2EMetricsCountEachOutcome(t *testing.T) {
	stopped, crashed := sm.NewGate(), sm.NewGate()
	t.Cleanup(stopped.Release)
	t.Cleanup(crashed.Release)
	e := newE2E(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseCommentary, "Reading first."), sm.Message(sm.PhaseFinalAnswer, "Never sent.")).WithHold(2, stopped),
		sm.Reply(sm.Message(sm.PhaseCommentary, "Working."), sm.Message(sm.PhaseFinalAnswer, "Never sent either.")).WithHold(2, crashed),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")),
	))
	e.h.AllowServerErrors() // the streams held at the gates end with their turns
	e.extra = "metrics:\n  addr: 127.0.0.1:0\n"
	e.env = append(e.env, "WECODEX_AGENT_CODEX_CONTINUE_INTERRUPTED=false")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	internal := "http://" + logField(t, b, "metrics listening", "addr")
	outcomes := func(finished, failed, cancelled, restarts float64) {
		t.Helper()
		m := scrape(t, ctx, internal+"/metrics")
		for name, want := range map[string]float64{
			`wecodex_turns_total{outcome="finished"}`:  finished,
			`wecodex_turns_total{outcome="failed"}`:    failed,
			`wecodex_turns_total{outcome="cancelled"}`: cancelled,
			`wecodex_turns_total{outcome="timed_out"}`: 0,
			`wecodex_turn_duration_seconds_count`:      finished + failed + cancelled,
			`wecodex_agent_restarts_total`:             restarts,
		} {
			if got, ok := m[name]; !ok || got != want {
				t.Errorf("%s = %v (exported %v), want %v", name, got, ok, want)
			}
		}
	}

	first := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "a long task"}, stopped)
	waitForFrame(t, ctx, b.sim, first.ID, "Reading first.")
	if _, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "/stop"}); err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, first.ID); !strings.HasSuffix(last.Content, "⏹ Cancelled") {
		t.Fatalf("stopped turn's final frame %q; frames seen %q", last.Content, seen)
	}
	outcomes(0, 0, 1, 0)

	second := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "crash please"}, crashed)
	groups := appServerGroups(b.cmd.Process.Pid)
	if len(groups) != 1 {
		t.Fatalf("serve has %d child process groups %v, want the one app-server", len(groups), groups)
	}
	if err := syscall.Kill(-groups[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, second.ID); !strings.HasSuffix(last.Content, "❌ Failed: The agent stopped unexpectedly and was restarted; send the message again.") {
		t.Fatalf("crashed turn's final frame %q; frames seen %q", last.Content, seen)
	}
	outcomes(0, 1, 1, 0)

	third, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "are you back?"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, third.ID); last.Content != "Done." {
		t.Fatalf("next turn's final frame %q; frames seen %q", last.Content, seen)
	}
	outcomes(1, 1, 1, 1)
}
