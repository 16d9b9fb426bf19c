package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// In longconn mode the replica holding the connection reports it on
// wecodex_longconn_connected (1 while subscribed, 0 while it reconnects) and
// on /readyz, and counts each long-connection callback with its result.
func TestE2ELongConnMetricsAndReadiness(t *testing.T) {
	const secret = "lc-secret"
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: e2eBotID, Secret: secret})
	e := newE2E(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Over the long connection."))))
	b := serveLongConn(t, e, srv.URL(), secret)
	ctx := within(t, 2*time.Minute)
	metricsURL := b.base + "/metrics"

	waitMetric(t, ctx, metricsURL, "wecodex_longconn_connected", 1)
	code, body := get(t, b.base+"/readyz")
	if want := `{"ready":true,"channels":{"wecom_aibot":"longconn connected: this replica holds the bot's long connection"}}` + "\n"; code != 200 || body != want {
		t.Fatalf("/readyz = %d %s\nwant 200 %s", code, body, want)
	}

	if err := srv.PushRaw([]byte(`{"cmd":"aibot_msg_callback","headers":{"req_id":"bad-1"},"body":"not an object"}`)); err != nil {
		t.Fatal(err)
	}
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "alice", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if got := final.Stream().Content; got != "Over the long connection." {
		t.Fatalf("final frame %q", got)
	}
	// A callback is counted once its handler returns and a turn once its
	// last frame was shown, either of which may come after WeCom saw the
	// frame. Callbacks are handled one at a time in arrival order, so the
	// rejected one is counted before the message is.
	waitMetric(t, ctx, metricsURL, `wecodex_callbacks_total{channel="wecom_aibot_longconn",result="ok"}`, 1)
	waitMetric(t, ctx, metricsURL, `wecodex_turns_total{outcome="finished"}`, 1)
	m := scrape(t, ctx, metricsURL)
	for name, want := range map[string]float64{
		`wecodex_callbacks_total{channel="wecom_aibot_longconn",result="ok"}`:       1,
		`wecodex_callbacks_total{channel="wecom_aibot_longconn",result="rejected"}`: 1,
		`wecodex_callback_duration_seconds_count{channel="wecom_aibot_longconn"}`:   2,
		`wecodex_turns_total{outcome="finished"}`:                                   1,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (exported %v), want %v", name, got, ok, want)
		}
	}

	// WeCom unreachable: the gauge drops and /readyz says what is going on.
	srv.Refuse(1 << 20)
	srv.DropSubscribed()
	waitMetric(t, ctx, metricsURL, "wecodex_longconn_connected", 0)
	code, body = get(t, b.base+"/readyz")
	var ready readyzBody
	if err := json.Unmarshal([]byte(body), &ready); err != nil || code != 503 || ready.Ready ||
		!strings.HasPrefix(ready.Problems["wecom_aibot"], "longconn reconnecting (attempt ") ||
		ready.Channels["wecom_aibot"] != ready.Problems["wecom_aibot"] {
		t.Fatalf("/readyz while WeCom refuses = %d %s, want 503 with wecom_aibot reconnecting", code, body)
	}
	srv.Refuse(0)
	waitMetric(t, ctx, metricsURL, "wecodex_longconn_connected", 1)

	if code := b.stop(); code != 0 {
		t.Fatalf("serve exited %d; logs:\n%s", code, b.logs)
	}
}

// serveLongConn is e.serve with the AI bot in longconn mode, dialling wsURL.
func serveLongConn(t *testing.T, e *e2e, wsURL, secret string) *botProc {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "wecodex.yaml")
	// The AI bot section is e.config's; the mode and the long connection's
	// keys come from the environment, as an admin may set them.
	if err := os.WriteFile(cfg, []byte(e.config(cfg, "5m30s")), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"WECODEX_WECOM_AIBOT_MODE=longconn", "WECODEX_WECOM_AIBOT_BOT_ID=" + e2eBotID,
		"WECODEX_WECOM_AIBOT_SECRET=" + secret, "WECODEX_WECOM_AIBOT_WS_URL=" + wsURL}
	for _, kv := range e.h.Env {
		if !strings.HasPrefix(kv, "WECODEX_") {
			env = append(env, kv)
		}
	}
	return serveWithEnv(t, cfg, env, e.urls)
}

// waitMetric waits until the sample name on url reads want. The gauge is set
// by the connection's own goroutine, so each scrape is a look, not a promise.
func waitMetric(t *testing.T, ctx context.Context, url, name string, want float64) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		got, ok := scrape(t, ctx, url)[name]
		if ok && got == want {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s = %v (exported %v), never %v", name, got, ok, want)
		case <-tick.C:
		}
	}
}
