package codex

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
)

// With FailInterrupted (continue_interrupted: false), a crash fails the
// turn it cut off, and its card says in one line what happened and what to
// do; the stderr tail (log lines, timestamps, the CODEX_HOME path) goes to
// the log at warn.
func TestCrashErrorIsOneLineAndStderrIsLogged(t *testing.T) {
	ctx := testCtx(t)
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	var logs testenv.LogBuffer
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "this answer never ends")).WithHold(1, gate),
	), sm.HomeOptions{}, Options{
		Env:             []string{"RUST_LOG=info"}, // Codex writes log lines to stderr
		FailInterrupted: true,
		Logger:          slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
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
