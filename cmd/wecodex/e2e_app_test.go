package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

const (
	e2eCorp      = "wwe2e0123456789"
	e2eAgent     = 1000002
	e2eAppSecret = "app-secret-e2e"
)

// The self-built app end to end: `wecodex serve` with wecom.app.* pointed
// (api_base) at the qyapi fake, the real Codex, a real Redis. A voice
// message's transcript runs a turn: the progress card, the answer as one
// markdown message, the card updated once to Done; /readyz names the
// channel; no log line carries the token, the secret or the message.
func TestE2EApp(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Looking."),
		sm.Message(sm.PhaseFinalAnswer, "Use `make test`."),
	)))
	api := wecomtest.NewAppAPI(wecomtest.AppAPIOptions{CorpID: e2eCorp, Secret: e2eAppSecret, AgentID: e2eAgent})
	t.Cleanup(api.Close)
	cfg := appConfig(t, e, api)
	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	ctx := within(t, 2*time.Minute)
	cb, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{URL: b.base + "/wecom/app", CorpID: e2eCorp, AgentID: e2eAgent,
		Token: e2eToken, EncodingAESKey: e2eAESKey})
	if err != nil {
		t.Fatal(err)
	}
	if status, echo, err := cb.VerifyURL(ctx, "e2e-echo"); err != nil || status != 200 || echo != "e2e-echo" {
		t.Fatalf("URL check: %d %q %v", status, echo, err)
	}
	rep, err := cb.Send(ctx, wecomtest.AppVoice("alice", "VOICE1", "how do I run the tests?"))
	if err != nil || rep.Status != 200 {
		t.Fatalf("voice callback: %d %v", rep.Status, err)
	}
	upd, err := api.Wait(ctx, func(r wecomtest.AppRecord) bool { return r.API == "message/update_template_card" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := api.Wait(ctx, func(r wecomtest.AppRecord) bool { return r.MsgType == "markdown" }); err != nil {
		t.Fatal(err)
	}
	sent := api.Delivered("alice", "")
	if len(sent) != 2 || sent[0].MsgType != "template_card" || sent[1].Content != "Use `make test`." {
		t.Fatalf("delivered %+v", sent)
	}
	if upd.Errcode != 0 || upd.ResponseCode != sent[0].ResponseCode || !strings.Contains(string(upd.Card), `"text":"Done"`) {
		t.Fatalf("card update %+v", upd)
	}
	resp, err := http.Get(b.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	ready, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(ready), "wecom_app") {
		t.Fatalf("/readyz does not name the app channel: %s", ready)
	}
	if code := b.stop(); code != 0 {
		t.Fatalf("serve exited %d; logs:\n%s", code, b.logs)
	}
	logs := b.logs.String()
	for _, r := range api.Records() {
		if r.Token != "" && strings.Contains(logs, r.Token) {
			t.Errorf("a log line carries the access token")
		}
	}
	if strings.Contains(logs, e2eAppSecret) || strings.Contains(logs, "how do I run the tests") {
		t.Errorf("a log line carries the secret or the message:\n%s", logs)
	}
}

// appConfig writes e's serve config with the self-built app on api and
// e.extra, and returns its path.
func appConfig(t *testing.T, e *e2e, api *wecomtest.AppAPI) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "wecodex.yaml")
	app := fmt.Sprintf("wecom:\n  app:\n    corp_id: %s\n    agent_id: \"%d\"\n    secret: %s\n    token: %s\n    encoding_aes_key: %s\n    api_base: %s\n",
		e2eCorp, e2eAgent, e2eAppSecret, e2eToken, e2eAESKey, api.URL())
	text := strings.Replace(e.config(cfg, "5m30s"), "wecom:\n", app, 1)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}
