package codex

import (
	"fmt"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// RateLimits are the windows the real Codex reads from ChatGPT's backend
// for an account logged in with ChatGPT (account/rateLimits/read), each
// with its use, length and reset time; for an account Codex has no limits
// for (the scripted model's, no login) there are none.
func TestRateLimitsAreCodexsWindows(t *testing.T) {
	ctx := testCtx(t)
	none, _ := newAgent(t, sm.Sequence(), sm.HomeOptions{}, Options{})
	if ws, err := none.RateLimits(ctx); len(ws) != 0 {
		t.Errorf("without a ChatGPT login: %+v, %v; want no windows", ws, err)
	}

	h := codextest.Start(t, sm.Sequence())
	backend := h.LogInChatGPT(t)
	ws, err := agentOn(t, h, Options{}).RateLimits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, fmt.Sprintf("%s %s %d%% of %s, resets %s", w.Limit, w.Which, w.UsedPercent, w.Window, w.ResetsAt.UTC().Format(time.RFC3339)))
	}
	want := fmt.Sprint([]string{"codex primary 42% of 5h0m0s, resets 2026-12-02T13:00:00Z", "codex secondary 7% of 168h0m0s, resets 2026-12-08T13:00:00Z"})
	if fmt.Sprint(got) != want {
		t.Errorf("windows %q, want %s", got, want)
	}
	if n := backend.UsageReads(); n != 1 {
		t.Errorf("Codex read the usage %d times, want 1", n)
	}
}
