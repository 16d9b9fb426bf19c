package codex

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/url"
	"os"
	"testing"

	"github.com/wecodex/wecodex/store"
)

// redisStore opens the real Redis (REDIS_URL, default the local one) under a
// key prefix of this test's own.
func redisStore(t *testing.T) *store.Store {
	t.Helper()
	raw := os.Getenv("REDIS_URL")
	if raw == "" {
		raw = "redis://127.0.0.1:6379"
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("REDIS_URL %q: %v", raw, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	opts := store.Options{Addrs: []string{u.Host}, Prefix: "wecodex-test-codex-" + hex.EncodeToString(b[:]) + ":"}
	if pw, ok := u.User.Password(); ok {
		opts.Password = pw
	}
	s, err := store.Open(context.Background(), opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open redis: %v", err)
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("redis at %s does not answer: %v (start one or set REDIS_URL)", raw, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A translator that starts after an item's item/started (another process, or
// this one after a reconnect) routes the item's deltas by the phase the first
// one wrote to Redis, and the record is gone once the item completes.
func TestPhaseFoundInRedisBySecondTranslator(t *testing.T) {
	s := redisStore(t)
	first := newLineRig(t, Options{Phases: s})
	first.feed(startedCommentary, delta("msg_c", `"seen by the first"`))

	second := newLineRig(t, Options{Phases: s})
	second.feed(
		delta("msg_c", `"routed by"`),
		delta("msg_c", `" the stored phase"`),
		completed("msg_c", `"commentary"`, "ignored"),
	)
	equalLines(t, "first", first.rec.lines(), []string{"thought[msg_c] seen by the first"})
	equalLines(t, "second", second.rec.lines(), []string{
		"thought[msg_c] routed by",
		"thought[msg_c]  the stored phase",
	})
	if _, ok, err := s.Phase(context.Background(), "th1", "msg_c"); ok || err != nil {
		t.Fatalf("phase still stored after item/completed: ok=%v err=%v", ok, err)
	}
}
