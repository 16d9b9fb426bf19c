package bridgetest

import (
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/internal/codextest"
)

// Logger logs to the test's log, debug level included, and goes quiet once
// the test has ended (goroutines of a stopped agent may still log).
func Logger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(b), "\n"))
	}
	return len(b), nil
}

// CodexOptions are the options Codex bridges offer for a command approval.
var CodexOptions = []acp.PermissionOption{
	{Kind: acp.PermissionOptionKindAllowAlways, Name: "Always allow", OptionId: "allow_always"},
	{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "allow"},
	{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject"},
}

// Outcome renders a permission response: "selected <id>", "cancelled" or
// "none".
func Outcome(r acp.RequestPermissionResponse) string {
	switch {
	case r.Outcome.Selected != nil:
		return "selected " + string(r.Outcome.Selected.OptionId)
	case r.Outcome.Cancelled != nil:
		return "cancelled"
	}
	return "none"
}

// Encode is v as JSON; it fails t when v does not marshal.
func Encode(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// HarnessEnv is the harness environment, and extra KEY=VALUE pairs, as an
// external agent's Options.Env map.
func HarnessEnv(h *codextest.Harness, extra ...string) map[string]string {
	env := map[string]string{}
	for _, kv := range append(h.CodexEnv(), extra...) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}
