package demo

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// What the card says first when the agent is not set up (bot/setup.go).
const (
	hintMissing = "failed: The agent is not installed on the bot's server: an admin installs Codex (`make codex` in a wecodex checkout, or `npm install -g @openai/codex`) or sets agent.codex.bin (agent.acp.command for another ACP agent)."
	hintLogin   = "failed: The agent is not logged in to its model provider: an admin runs `wecodex codex-login` on the bot's server (add `--with-api-key` to give a key on stdin) or configures a model provider with an API key in agent.codex.config."
)

// TestPlaygroundSetupGuidance: when Codex is missing, or its model provider
// refuses the credentials, the card says what to do instead of failing
// silently or with a bare error.
func TestPlaygroundSetupGuidance(t *testing.T) {
	t.Run("codex missing", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "codex")
		d := startDemo(t, "WECODEX_AGENT_CODEX_BIN="+missing)
		ctx := browser(t)
		open(t, ctx, d.URL)
		send(t, ctx, "hello")
		waitCard(t, ctx, 0, `s.startsWith("failed")`)
		c := readCards(t, ctx)[0]
		// One sentence for the person in the chat; the server's path stays in the log.
		if c.Status != hintMissing || strings.Contains(c.Status, missing) || c.State != "failed" {
			t.Errorf("status = %q (state %q), want %q, without %s", c.Status, c.State, hintMissing, missing)
		}
	})
	t.Run("not logged in", func(t *testing.T) {
		// A model provider that refuses every key, as OpenAI's API does
		// without a login.
		refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`))
		}))
		t.Cleanup(refuse.Close)
		home := t.TempDir()
		if err := scriptedmodel.WriteCodexHome(home, refuse.URL+"/v1", scriptedmodel.HomeOptions{}); err != nil {
			t.Fatal(err)
		}
		d := startDemo(t, "CODEX_HOME="+home)
		ctx := browser(t)
		open(t, ctx, d.URL)
		send(t, ctx, "hello")
		waitCard(t, ctx, 0, `s.startsWith("failed")`)
		c := readCards(t, ctx)[0]
		// The provider's raw error (and its URL) stays in the log.
		if c.Status != hintLogin || strings.Contains(c.Status, "Incorrect API key") || strings.Contains(c.Status, refuse.URL) {
			t.Errorf("status = %q, want %q, without the provider's raw error", c.Status, hintLogin)
		}
	})
}
