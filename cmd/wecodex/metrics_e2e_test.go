package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A real turn shows up on metrics.addr with its outcome and exact counts;
// pprof is served there and never on server.addr, which then has no
// /metrics either. Every log line of the turn carries one turn id.
func TestE2EMetricsCountATurn(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Checking the Makefile first."),
		sm.Message(sm.PhaseFinalAnswer, "Run `make test` to run every test."),
	)))
	e.extra = "metrics:\n  addr: 127.0.0.1:0\n  pprof: true\n"
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	internal := "http://" + logField(t, b, "metrics listening", "addr")

	if _, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "hi"}, wecomtest.WithForgedSignature()); statusCode(err) != 401 {
		t.Fatalf("forged signature: %v, want HTTP 401", err)
	}
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "how do I run the tests?"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "<think>\nChecking the Makefile first.\n</think>\n\nRun `make test` to run every test." {
		t.Fatalf("final frame %q; frames seen %q", last.Content, seen)
	}

	m := scrape(t, ctx, internal+"/metrics")
	for name, want := range map[string]float64{
		`wecodex_turns_total{outcome="finished"}`:                          1,
		`wecodex_turns_total{outcome="failed"}`:                            0,
		`wecodex_turns_total{outcome="cancelled"}`:                         0,
		`wecodex_turns_total{outcome="timed_out"}`:                         0,
		`wecodex_turn_duration_seconds_count`:                              1,
		`wecodex_first_progress_seconds_count`:                             1,
		`wecodex_queue_depth`:                                              0,
		`wecodex_agent_restarts_total`:                                     0,
		`wecodex_longconn_connected`:                                       0,
		`wecodex_callbacks_total{channel="wecom_aibot",result="rejected"}`: 1,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("%s = %v (exported %v), want %v", name, got, ok, want)
		}
	}
	// The send and at least one refresh were answered; one more refresh is
	// exactly one more callback, and its duration is counted with it.
	ok := m[`wecodex_callbacks_total{channel="wecom_aibot",result="ok"}`]
	if ok < 2 || m[`wecodex_callback_duration_seconds_count{channel="wecom_aibot"}`] != ok+1 {
		t.Errorf("ok callbacks %v, durations %v: want ≥ 2 ok and one duration per callback (ok + 1 rejected)",
			ok, m[`wecodex_callback_duration_seconds_count{channel="wecom_aibot"}`])
	}
	if _, err := b.sim.Refresh(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if got := scrape(t, ctx, internal+"/metrics")[`wecodex_callbacks_total{channel="wecom_aibot",result="ok"}`]; got != ok+1 {
		t.Errorf("ok callbacks after one more refresh = %v, want %v", got, ok+1)
	}
	for name := range m {
		if strings.HasPrefix(name, "wecodex_redis_errors_total") {
			t.Errorf("%s = %v: no Redis command should have failed", name, m[name])
		}
	}

	for _, c := range []struct {
		url  string
		want int
	}{
		{internal + "/debug/pprof/", 200},
		{internal + "/debug/pprof/goroutine?debug=1", 200},
		{b.base + "/debug/pprof/", 404},
		{b.base + "/metrics", 404},
	} {
		if got := httpStatus(t, ctx, c.url); got != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, got, c.want)
		}
	}

	if code := b.stop(); code != 0 {
		t.Fatalf("serve exited %d; logs:\n%s", code, b.logs)
	}
	checkTurnLines(t, b)
}

// Without metrics.addr, /metrics is on server.addr and pprof is nowhere.
func TestServeMetricsOnServerAddrWithoutPprof(t *testing.T) {
	e := newE2E(t, sm.Sequence())
	b := e.serve(t, "5m30s")
	ctx := within(t, time.Minute)
	m := scrape(t, ctx, b.base+"/metrics")
	if got, ok := m[`wecodex_turns_total{outcome="finished"}`]; !ok || got != 0 {
		t.Errorf(`wecodex_turns_total{outcome="finished"} = %v (exported %v), want 0`, got, ok)
	}
	if _, ok := m["go_goroutines"]; !ok {
		t.Error("go_goroutines is not exported: the Go collector is not registered")
	}
	if got := httpStatus(t, ctx, b.base+"/debug/pprof/"); got != 404 {
		t.Errorf("GET /debug/pprof/ on server.addr: %d, want 404", got)
	}
}

// checkTurnLines checks the turn's start and end lines carry the same turn
// id, and the end line its outcome and duration.
func checkTurnLines(t *testing.T, b *botProc) {
	t.Helper()
	var started, ended map[string]any
	b.logs.mu.Lock()
	for _, r := range b.logs.lines {
		switch r["msg"] {
		case "turn started":
			started = r
		case "turn ended":
			ended = r
		}
	}
	b.logs.mu.Unlock()
	if started == nil || ended == nil {
		t.Fatalf("no turn started/ended lines; logs:\n%s", b.logs)
	}
	if id, _ := started["turn"].(string); id == "" || ended["turn"] != id {
		t.Errorf("turn ids: started %v, ended %v; want the same, non-empty", started["turn"], ended["turn"])
	}
	if ended["outcome"] != "finished" {
		t.Errorf("turn ended outcome %v, want finished", ended["outcome"])
	}
	if d, err := time.ParseDuration(ended["duration"].(string)); err != nil || d <= 0 {
		t.Errorf("turn ended duration %v: want a positive duration", ended["duration"])
	}
}

func logField(t *testing.T, b *botProc, msg, field string) string {
	t.Helper()
	b.logs.mu.Lock()
	defer b.logs.mu.Unlock()
	for _, r := range b.logs.lines {
		if r["msg"] == msg {
			if v, ok := r[field].(string); ok {
				return v
			}
		}
	}
	t.Fatalf("no log line %q with %s; logs:\n%s", msg, field, b.logs)
	return ""
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$`)

// scrape fetches a Prometheus text page: sample (name with labels) → value.
func scrape(t *testing.T, ctx context.Context, url string) map[string]float64 {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if mm := sampleLine.FindStringSubmatch(line); mm != nil {
			v, err := strconv.ParseFloat(mm[2], 64)
			if err != nil {
				t.Fatalf("sample %q: %v", line, err)
			}
			out[mm[1]] = v
		}
	}
	return out
}

func httpStatus(t *testing.T, ctx context.Context, url string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}
