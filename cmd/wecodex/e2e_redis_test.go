package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A replica started while its Redis is down is alive but not ready, and
// answers a message callback with a 5xx so WeCom delivers it again; once
// Redis is up, the redelivery runs the message exactly once. Every line it
// writes meanwhile (go-redis's own included) is JSON, as log.format says.
func TestE2ERedisUnreachableAtStart(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Redis is back."))))
	srv := testenv.NewRedisServer(t)
	e.redisURL = &redis.Options{Addr: srv.Addr()}
	b := e.serve(t, "5m30s")
	logsOnFailure(t, b)
	ctx := within(t, 2*time.Minute)

	if code, body := get(t, b.base+"/healthz"); code != 200 || body != "ok" {
		t.Fatalf("/healthz = %d %q, want 200 ok", code, body)
	}
	code, body := get(t, b.base+"/readyz")
	var ready struct {
		Ready    bool              `json:"ready"`
		Problems map[string]string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(body), &ready); err != nil || code != 503 || ready.Ready ||
		!strings.HasPrefix(ready.Problems["redis"], "Redis does not answer") || strings.Contains(body, srv.Addr()) {
		t.Fatalf("/readyz = %d %s, want 503 saying Redis does not answer, without its address %s", code, body, srv.Addr())
	}
	msg := wecomtest.Message{MsgID: "msg-while-redis-is-down", From: "alice", Text: "is Redis back?"}
	if _, err := b.sim.Send(ctx, msg); statusCode(err) != 500 {
		t.Fatalf("callback while Redis is down: %v, want HTTP 500 so WeCom retries", err)
	}

	srv.Start()
	// WeCom keeps redelivering; the test redelivers once serve sees Redis.
	waitReady(t, ctx, b)
	s, err := b.sim.Send(ctx, msg, wecomtest.WithRedeliveries(1))
	if err != nil {
		t.Fatalf("redelivery once Redis is up: %v", err)
	}
	// The placeholder, or the running card: the delivery answered 500
	// while Redis was down may still have been taken once go-redis got
	// through (its dial retries outlive the answer), and then this delivery
	// is a repeat, answered with the stream's newest frame. Either way one
	// stream, not finished, and one turn (the model count below).
	const running = "<think>\n⏳ Working…\n</think>\n\n"
	if s.First.ID != s.ID || s.First.Finish || (s.First.Content != thinking && s.First.Content != running) || s.Redelivered[0].ID != s.ID {
		t.Fatalf("redelivery answered %+v then %+v, want %q or %q on one stream", s.First, s.Redelivered, thinking, running)
	}
	if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "Redis is back." {
		t.Fatalf("final frame %q, want the answer; frames %q", last.Content, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model saw %d requests, want 1", n)
	}
	if code, _ := get(t, b.base+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d once Redis is up, want 200", code)
	}
	b.stop()
	for _, l := range b.logs.snapshot() {
		if raw, ok := l["raw"]; ok {
			t.Errorf("a log line is not JSON: %q", raw)
		}
	}
}

// snapshot is a copy of the lines so far.
func (l *logLines) snapshot() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.lines...)
}

// logsOnFailure prints the serve process's log lines when the test failed.
func logsOnFailure(t *testing.T, b *botProc) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve's log:\n%s", b.logs)
		}
	})
}

// waitReady waits until serve's /readyz answers 200: after failed dials
// go-redis may take a second to dial Redis again, and until then a callback
// is answered 5xx (WeCom retries it; the simulator does not).
func waitReady(t *testing.T, ctx context.Context, b *botProc) {
	t.Helper()
	for code, _ := get(t, b.base+"/readyz"); code != 200; code, _ = get(t, b.base+"/readyz") {
		select {
		case <-ctx.Done():
			t.Fatal("/readyz never answered 200 after Redis started")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
