package codex

import (
	"context"
	"testing"

	"github.com/wecodex/wecodex/internal/testenv"
)

// redisStore opens the real Redis (REDIS_URL, default the local one) under a
// key prefix of this test's own.
func redisStore(t *testing.T) *testenv.Stores {
	t.Helper()
	return testenv.OpenStores(t, testenv.Prefix(t, "codex"))
}

// A translator that starts after an item's item/started (another process, or
// this one after a reconnect) routes the item's deltas by the phase the first
// one wrote to Redis, and the record is gone once the item completes.
func TestPhaseFoundInRedisBySecondTranslator(t *testing.T) {
	s := redisStore(t)
	first := newLineRig(t, Options{Phases: s})
	first.feed(startedCommentary, delta("msg_c", `"seen by the first"`))
	// The phase reaches Redis behind the read loop (write-behind).
	if err := first.a.cache.Flush(testCtx(t)); err != nil {
		t.Fatal(err)
	}

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
	if err := second.a.cache.Flush(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Phase(context.Background(), "th1", "msg_c"); ok || err != nil {
		t.Fatalf("phase still stored after item/completed: ok=%v err=%v", ok, err)
	}
}
