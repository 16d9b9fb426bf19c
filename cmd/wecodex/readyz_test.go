package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/configs"
)

type okPinger struct{}

func (okPinger) Ping(context.Context) error { return nil }

// /readyz names no addresses: a channel's state that quotes its error (a
// dial to the long-connection endpoint, say) has every URL, IP and
// host:port replaced; the log keeps them.
func TestReadyzNamesNoAddresses(t *testing.T) {
	states := []string{
		`reconnecting (attempt 3, next in 4s): failed to WebSocket dial: failed to send handshake request: Get "wss://ws.corp.example:8443/": dial tcp 10.20.30.40:8443: connect: connection refused`,
		`stopped: dial tcp [fd00::7]:443: i/o timeout`,
		`reconnecting (attempt 1, next in 1s): lookup openws.internal on 127.0.0.53:53: no such host`,
	}
	var chans []*channel
	for i, st := range states {
		st := st
		chans = append(chans, &channel{name: []string{"a", "b", "c"}[i], status: func() (bool, string) { return false, st }})
	}
	var logs strings.Builder
	h := &readiness{deps: serverDeps{Config: configs.Default(), Redis: okPinger{}, Channels: chans,
		LookPath: func(string) (string, error) { return "/bin/codex", nil }, Log: slog.New(slog.NewTextHandler(&logs, nil))}}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	body := rec.Body.String()
	for _, addr := range []string{"ws.corp.example", "10.20.30.40", "8443", "fd00::7", "127.0.0.53", "wss://"} {
		if strings.Contains(body, addr) {
			t.Errorf("/readyz names %q:\n%s", addr, body)
		}
	}
	var got readyzBody
	if err := json.Unmarshal([]byte(body), &got); err != nil || rec.Code != 503 {
		t.Fatalf("/readyz = %d %s", rec.Code, body)
	}
	if want := `stopped: dial tcp (address in the log): i/o timeout`; got.Channels["b"] != want {
		t.Errorf("state %q, want %q", got.Channels["b"], want)
	}
	if !strings.Contains(logs.String(), "10.20.30.40:8443") {
		t.Errorf("the log lost the address:\n%s", logs.String())
	}
}
