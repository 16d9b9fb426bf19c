package external

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// TestExternalAgentCancelWhileReattaching: after the agent process died, the
// next prompt restarts it and reloads the session; a /stop that comes while
// that reload is still running must end the turn cancelled, with no prompt
// sent. The agent holds session/load open on a FIFO, so Cancel lands inside
// the reattach on every run, at any machine speed.
func TestExternalAgentCancelWhileReattaching(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "load")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := New(ctx, Options{
		Command: []string{exe, "-test.run=^$"},
		Env:     map[string]string{floodAgentEnv: "3", loadFIFOEnv: fifo},
		Log:     slog.New(slog.NewTextHandler(newTWriter(t), &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("start agent: %v", err)
	}
	defer a.Close()
	id, err := a.NewSession(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The agent crashes between turns.
	a.mu.Lock()
	first := a.proc
	a.mu.Unlock()
	first.kill()

	sink := &chunkSink{}
	type result struct {
		reason acp.StopReason
		err    error
	}
	done := make(chan result, 1)
	go func() {
		r, err := a.Prompt(ctx, id, acpbridge.TextPrompt("flood"), sink)
		done <- result{r, err}
	}()
	// Opening the FIFO to write returns once the new agent's session/load
	// has opened it to read: Prompt is inside the reattach.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	w.Close() // the load answers

	r := <-done
	if r.err != nil || r.reason != acp.StopReasonCancelled {
		t.Fatalf("prompt cancelled during reattach = %q, %v; want cancelled", r.reason, r.err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.texts) != 0 {
		t.Errorf("the turn ran after /stop: chunks %q", sink.texts)
	}
	if want := []string{"notice: The agent was restarted; this conversation's session was reloaded."}; !slices.Equal(sink.bad, want) {
		t.Errorf("notices %q, want %q", sink.bad, want)
	}
}
