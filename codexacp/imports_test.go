package codexacp

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// codexacp is the bridge served on stdio: the bridge, the configs and what
// the commands share, never the bot, a channel or the store.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/cli", "github.com/wecodex/wecodex/configs",
		"github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/acpbridge/codex", "github.com/wecodex/wecodex/acpbridge/serve")
}

// TestLeanBinaryStaysLean: what the lean binary links, all the way down,
// holds none of the bot's weight (the engine, the channels, the store, Redis,
// metrics, Markdown, the WeCom SDK); one of them would bring its start-up
// pages back into every editor's bridge process.
func TestLeanBinaryStaysLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/wecodex/wecodex/cmd/wecodex-codex-acp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	heavy := []string{
		"github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/store", "github.com/wecodex/wecodex/cards",
		"github.com/wecodex/wecodex/metrics", "github.com/redis/", "github.com/alicebob/miniredis",
		"github.com/prometheus/", "github.com/yuin/goldmark", "github.com/silenceper/", "github.com/coder/websocket",
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps printed %d packages; want the whole graph:\n%s", len(deps), out)
	}
	for _, d := range deps {
		for _, h := range heavy {
			if d == h || strings.HasPrefix(d, h) && (strings.HasSuffix(h, "/") || strings.HasPrefix(d, h+"/")) {
				t.Errorf("cmd/wecodex-codex-acp links %s", d)
			}
		}
	}
}
