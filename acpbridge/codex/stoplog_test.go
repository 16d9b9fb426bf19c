package codex

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// lockedBuf is a log sink the app-server's read loop and the test share.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCloseLogsNoWarning: an app-server this side stopped (Close) is logged
// at info, not as a WARN "exited" with "signal: killed" on every clean stop.
func TestCloseLogsNoWarning(t *testing.T) {
	ctx := testCtx(t)
	var logs lockedBuf
	a, h := newAgent(t, sm.Sequence(), sm.HomeOptions{}, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if _, err := a.NewSession(ctx, h.Workspace); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got := logs.String()
	if strings.Contains(got, "app-server exited") || !strings.Contains(got, `level=INFO msg="codex app-server stopped" status="signal: killed"`) {
		t.Fatalf("logs after Close:\n%s\nwant an INFO \"codex app-server stopped\" and no WARN \"exited\"", got)
	}
}
