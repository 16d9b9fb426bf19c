package codextest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// ChatGPTUsage is a ChatGPT account's rate limits as ChatGPT's backend
// reports them to Codex (GET /backend-api/wham/usage): a 5-hour primary
// window 42% used, resetting 2026-12-02 13:00 UTC, and a weekly secondary
// window 7% used, resetting 2026-12-08 13:00 UTC.
const ChatGPTUsage = `{"plan_type":"plus","rate_limit":{"allowed":true,"limit_reached":false,` +
	`"primary_window":{"used_percent":42,"limit_window_seconds":18000,"reset_after_seconds":3600,"reset_at":1796216400},` +
	`"secondary_window":{"used_percent":7,"limit_window_seconds":604800,"reset_after_seconds":86400,"reset_at":1796734800}}}`

// ChatGPTBackend stands in for ChatGPT's backend: what Codex asks it for an
// account logged in with ChatGPT (account/rateLimits/read).
type ChatGPTBackend struct {
	usageReads atomic.Int64
}

// UsageReads is how many times Codex read the account's usage.
func (b *ChatGPTBackend) UsageReads() int64 { return b.usageReads.Load() }

// LogInChatGPT makes h's Codex a ChatGPT-logged-in one whose backend
// (chatgpt_base_url) answers usage with ChatGPTUsage: an auth.json with
// tokens Codex reads but never checks the signature of, which expire in a
// day so Codex refreshes nothing. Turns still go to the scripted model (its
// provider needs no login). Call it before starting Codex.
func (h *Harness) LogInChatGPT(t testing.TB) *ChatGPTBackend {
	t.Helper()
	b := &ChatGPTBackend{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/backend-api/wham/usage" {
			http.NotFound(w, r)
			return
		}
		b.usageReads.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(ChatGPTUsage))
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(h.Home, "config.toml")
	old, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A top-level key: before config.toml's first table.
	top := []byte("chatgpt_base_url = \"" + srv.URL + "/backend-api/\"\n")
	if err := os.WriteFile(cfg, append(top, old...), 0o600); err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(24 * time.Hour).Unix()
	claims := map[string]any{"chatgpt_plan_type": "plus", "chatgpt_account_id": "acc-test", "chatgpt_user_id": "user-test"}
	auth, _ := json.Marshal(map[string]any{
		"auth_mode": "chatgpt",
		"tokens": map[string]any{
			"id_token":      unsignedJWT(map[string]any{"email": "test@example.com", "exp": exp, "https://api.openai.com/auth": claims}),
			"access_token":  unsignedJWT(map[string]any{"exp": exp, "https://api.openai.com/auth": claims}),
			"refresh_token": "refresh-test",
			"account_id":    "acc-test",
		},
		"last_refresh": time.Now().UTC().Format(time.RFC3339),
	})
	if err := os.WriteFile(filepath.Join(h.Home, "auth.json"), auth, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// unsignedJWT is a JWT carrying claims with no real signature.
func unsignedJWT(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + ".unsigned"
}

// EnableImageGeneration makes h's Codex one that offers the model its image
// tool (image_gen.imagegen) and saves what it draws under
// CODEX_HOME/generated_images: Codex 0.171 offers it only on its built-in
// OpenAI provider with a ChatGPT login, so this logs in (LogInChatGPT) and
// points that provider at the scripted server (openai_base_url). The tool
// calls the server's Images API; queue its pictures with
// Server.GenerateImages. Call it before starting Codex.
func (h *Harness) EnableImageGeneration(t testing.TB) *ChatGPTBackend {
	t.Helper()
	b := h.LogInChatGPT(t)
	cfg := filepath.Join(h.Home, "config.toml")
	old, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const scripted = `model_provider = "scripted"`
	if !bytes.Contains(old, []byte(scripted)) {
		t.Fatalf("%s does not name the scripted provider", cfg)
	}
	top := "openai_base_url = \"" + h.Server.URL() + "\"\n"
	n := top + strings.Replace(string(old), scripted, `model_provider = "openai"`, 1)
	if err := os.WriteFile(cfg, []byte(n), 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}
