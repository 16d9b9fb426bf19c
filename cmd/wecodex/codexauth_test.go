package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestServeSaysCodexIsNotLoggedIn: serve logs at start which CODEX_HOME it
// runs Codex with and that nothing is logged in there; /readyz says so
// first among agent_warnings until a login appears (without a restart).
func TestServeSaysCodexIsNotLoggedIn(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence())
	codexHome := t.TempDir() // no auth.json, no config.toml
	opt := testenv.RedisOptions(t)
	cfg := writeConfig(t, fmt.Sprintf(`server:
  addr: 127.0.0.1:0
log:
  format: json
redis:
  addr: %q
  password: %q
  db: %d
  prefix: %q
wecom:
  aibot:
    token: %s
    encoding_aes_key: %s
agent:
  codex:
    bin: %q
    home: %q
access:
  allow_users: [alice]
`, opt.Addr, opt.Password, opt.DB, testenv.Prefix(t, "nologin"), e2eToken, e2eAESKey, h.Bin, codexHome))
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = urls.Close() })
	b := serveWithEnv(t, cfg, envWithout(h.Env, "CODEX_HOME"), urls)
	b.logs.waitFor(t, within(t, time.Minute), "codex", map[string]any{"bin": h.Bin, "codex_home": codexHome, "logged_in": false})

	if ws := readyzWarnings(t, b.base); len(ws) == 0 || ws[0] != notLoggedIn {
		t.Fatalf("/readyz agent_warnings = %q, want %q first", ws, notLoggedIn)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "auth.json"), []byte(`{"auth_mode":"apikey","OPENAI_API_KEY":"sk-test"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, w := range readyzWarnings(t, b.base) {
		if w == notLoggedIn {
			t.Fatalf("/readyz still says %q after the login", w)
		}
	}
}

func readyzWarnings(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ready readyzBody
	if err := json.NewDecoder(resp.Body).Decode(&ready); err != nil {
		t.Fatal(err)
	}
	return ready.AgentWarnings
}
