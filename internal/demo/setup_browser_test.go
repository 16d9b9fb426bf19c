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
	hintMissing = "failed: The agent is not installed on the bot's server. An admin installs Codex (`make tools` in a wecodex checkout, or `npm install -g @openai/codex`)"
	hintLogin   = "failed: The agent is not logged in: its model provider answered 401 Unauthorized. An admin runs `codex login` on the bot's server"
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
		if !strings.HasPrefix(c.Status, hintMissing) || !strings.Contains(c.Status, missing) || c.State != "failed" {
			t.Errorf("status = %q (state %q), want it to start with %q and name %s", c.Status, c.State, hintMissing, missing)
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
		if !strings.HasPrefix(c.Status, hintLogin) || !strings.Contains(c.Status, "401 Unauthorized: Incorrect API key provided.") {
			t.Errorf("status = %q, want it to start with %q and keep the provider's error", c.Status, hintLogin)
		}
	})
}
