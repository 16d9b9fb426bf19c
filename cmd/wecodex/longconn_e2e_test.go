package main

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/coder/websocket"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A long connection that stopped for good says why on /readyz, in words an
// admin can act on, and does not try again: a wrong secret (853000) and
// another connection taking the bot (disconnected_event).
func TestE2ELongConnReadyzSaysWhyItStopped(t *testing.T) {
	for _, tc := range []struct {
		name    string
		secret  string // the secret serve subscribes with
		kick    bool   // another connection subscribes as the bot
		problem string
		subs    int // subscribes the fake server saw in all
	}{
		{"wrong secret", "not-the-secret", false,
			"longconn stopped: wecom refused wecom.aibot.bot_id or wecom.aibot.secret (errcode 853000): " +
				"copy both again from the bot's API mode → long connection page in the WeCom admin console", 1},
		{"kicked", lcSecret, true,
			"longconn stopped: another connection subscribed as this bot (disconnected_event): " +
				"look for another wecodex deployment or an SDK process using the same bot_id; not reconnecting", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, srv := newLongConnE2E(t, sm.Sequence())
			e.env = append(e.env, "WECODEX_WECOM_AIBOT_SECRET="+tc.secret)
			ctx := within(t, time.Minute)
			a := e.serve(t, "5m30s")
			if tc.kick {
				conn := subscribedBy(t, ctx, srv, a)
				subscribeAsBot(t, ctx, srv)
				if _, err := srv.Wait(ctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindClose && r.Conn == conn }); err != nil {
					t.Fatal(err)
				}
			}
			a.logs.waitFor(t, ctx, "wecom long connection stopped", nil)
			code, body := get(t, a.base+"/readyz")
			var ready readyzBody
			if err := json.Unmarshal([]byte(body), &ready); err != nil || code != 503 || ready.Ready ||
				!maps.Equal(ready.Problems, map[string]string{"wecom_aibot": tc.problem}) {
				t.Fatalf("/readyz: %d %s (%v); want 503 with the problem %q", code, body, err, tc.problem)
			}
			if n := len(srv.Requests("aibot_subscribe")); n != tc.subs {
				t.Fatalf("subscribes = %d, want %d: no retry after stopping", n, tc.subs)
			}
			if got := a.logs.withMsg("wecom long connection lost; reconnecting", nil); len(got) != 0 {
				t.Fatalf("serve tried to reconnect: %v", got)
			}
		})
	}
}

// subscribeAsBot subscribes a connection of the test's own with the bot's
// credentials, as a second deployment or SDK process would.
func subscribeAsBot(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer) {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.CloseNow() })
	sub := `{"cmd":"aibot_subscribe","headers":{"req_id":"aibot_subscribe_other"},"body":{"bot_id":"` + lcBotID + `","secret":"` + lcSecret + `"}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
		t.Fatal(err)
	}
}
