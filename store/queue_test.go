package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestQueueOrderLimitAndPending(t *testing.T) { forEachBackend(t, testQueueOrderLimitAndPending) }

func testQueueOrderLimitAndPending(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "q1"
	for i, item := range []string{"a", "b", "c"} {
		pos, leased, err := s.Enqueue(ctx, conv, []byte(item), 3)
		if err != nil || pos != i+1 || leased {
			t.Fatalf("Enqueue(%s) = %d %v %v, want %d, not leased", item, pos, leased, err, i+1)
		}
	}
	if pos, _, err := s.Enqueue(ctx, conv, []byte("d"), 3); err != nil || pos != 0 {
		t.Fatalf("Enqueue over the limit = %d %v, want 0", pos, err)
	}
	if p, err := s.Pending(ctx, 10); err != nil || !slices.Equal(p, []string{conv}) {
		t.Fatalf("Pending = %v %v", p, err)
	}
	tt, err := taken(s.TakeTurn(ctx, conv, "r", time.Minute))
	token, item, left := tt.Token, tt.Item, tt.Queued
	if err != nil || token == 0 || string(item) != "a" || left != 2 {
		t.Fatalf("TakeTurn = %d %q %d %v", token, item, left, err)
	}
	if pos, leased, err := s.Enqueue(ctx, conv, []byte("d"), 3); err != nil || pos != 3 || !leased {
		t.Fatalf("Enqueue while leased = %d %v %v, want 3, leased", pos, leased, err)
	}
	q, err := s.Queued(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range q {
		got = append(got, string(it))
	}
	if !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("Queued = %v", got)
	}
	// Not settled while messages wait.
	if err := s.SettlePending(ctx, conv); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Pending(ctx, 10); len(p) != 1 {
		t.Fatalf("Pending after settling a busy queue = %v", p)
	}
	for range 3 {
		if _, held, err := s.NextTurn(ctx, conv, token, time.Minute); err != nil || !held {
			t.Fatal(held, err)
		}
	}
	// The last item runs: pending until its holder releases, so a poll finds
	// the turn if the holder dies.
	if err := s.SettlePending(ctx, conv); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Pending(ctx, 10); len(p) != 1 {
		t.Fatalf("Pending while the last item runs = %v", p)
	}
	if it, held, err := s.NextTurn(ctx, conv, token, time.Minute); err != nil || !held || it != nil {
		t.Fatal(it, held, err)
	}
	if err := s.SettlePending(ctx, conv); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Pending(ctx, 10); len(p) != 0 {
		t.Fatalf("Pending after the queue emptied = %v", p)
	}
}

func TestDedupeAndFrames(t *testing.T) { forEachBackend(t, testDedupeAndFrames) }

func testDedupeAndFrames(t *testing.T, s *stores) {
	ctx := context.Background()
	rec, claimed, err := s.ClaimMessage(ctx, "single:alice", "alice", "m1", "s1")
	if err != nil || !claimed || rec != "s1" {
		t.Fatalf("first claim = %q %v %v", rec, claimed, err)
	}
	rec, claimed, err = s.ClaimMessage(ctx, "single:alice", "alice", "m1", "s2")
	if err != nil || claimed || rec != "s1" {
		t.Fatalf("repeat claim = %q %v %v, want s1, not claimed", rec, claimed, err)
	}
	// The same msgid from another sender or conversation is another message.
	for _, other := range [][2]string{{"single:bob", "bob"}, {"group:alice", "alice"}, {"single:alice", "bob"}} {
		rec, claimed, err = s.ClaimMessage(ctx, other[0], other[1], "m1", "s-"+other[1])
		if err != nil || !claimed || rec != "s-"+other[1] {
			t.Fatalf("claim of m1 by %s in %s = %q %v %v, want its own stream", other[1], other[0], rec, claimed, err)
		}
	}

	if _, _, _, _, ok, err := s.LoadFrame(ctx, "s1"); err != nil || ok {
		t.Fatalf("LoadFrame of a new stream = %v %v", ok, err)
	}
	if ok, err := s.SaveFrameIf(ctx, "s1", "waiting", "waiting", "single:alice", "", "queued 2"); err != nil || !ok {
		t.Fatalf("SaveFrameIf on empty = %v %v", ok, err)
	}
	if ok, err := s.SaveFrameIf(ctx, "s1", "", "waiting", "single:alice", "", "claim"); err != nil || ok {
		t.Fatalf("SaveFrameIf of a claim over a frame = %v %v, want false", ok, err)
	}
	if ok, err := s.SaveFrameIf(ctx, "s1", "waiting", "waiting", "single:alice", "", "queued 1"); err != nil || !ok {
		t.Fatalf("SaveFrameIf on waiting = %v %v", ok, err)
	}
	if ok, err := s.SaveFrameUnless(ctx, "s1", "finished", "running", "single:alice", "alice", "running"); err != nil || !ok {
		t.Fatalf("SaveFrameUnless over waiting = %v %v", ok, err)
	}
	if ok, err := s.SaveFrameIf(ctx, "s1", "waiting", "waiting", "single:alice", "", "queued 1"); err != nil || ok {
		t.Fatalf("SaveFrameIf over a running frame = %v %v, want false", ok, err)
	}
	if st, own, u, c, ok, err := s.LoadFrame(ctx, "s1"); err != nil || !ok || st != "running" || own != "single:alice" || u != "alice" || c != "running" {
		t.Fatalf("LoadFrame = %q %q %q %q %v %v", st, own, u, c, ok, err)
	}
	// The frame is a hash read by field: no byte of the content is taken for
	// its state or its owner.
	if h := s.Client().HGetAll(ctx, s.Keys().Frame("s1")).Val(); len(h) != 4 || h["state"] != "running" || h["owner"] != "single:alice" || h["user"] != "alice" || h["content"] != "running" {
		t.Fatalf("frame hash = %v", h)
	}

	// A finished frame stays: SaveFrameUnless writes over anything else.
	if ok, err := s.SaveFrameUnless(ctx, "s2", "finished", "running", "o", "", "first"); err != nil || !ok {
		t.Fatalf("SaveFrameUnless on empty = %v %v", ok, err)
	}
	if ok, err := s.SaveFrameUnless(ctx, "s2", "finished", "finished", "o", "", "failed"); err != nil || !ok {
		t.Fatalf("SaveFrameUnless over running = %v %v", ok, err)
	}
	if ok, err := s.SaveFrameUnless(ctx, "s2", "finished", "finished", "o", "", "late answer"); err != nil || ok {
		t.Fatalf("SaveFrameUnless over finished = %v %v, want false", ok, err)
	}
	if st, _, _, c, ok, err := s.LoadFrame(ctx, "s2"); err != nil || !ok || st != "finished" || c != "failed" {
		t.Fatalf("LoadFrame = %q %q %v %v, want the first finished frame", st, c, ok, err)
	}
	if ttl := s.Client().TTL(ctx, s.Keys().Frame("s2")).Val(); ttl <= 0 || ttl > FrameTTL {
		t.Fatalf("frame TTL %v", ttl)
	}
}

func TestConversation(t *testing.T) { forEachBackend(t, testConversation) }

func testConversation(t *testing.T, s *stores) {
	ctx := context.Background()
	if sid, cwd, err := s.Conversation(ctx, "c"); err != nil || sid != "" || cwd != "" {
		t.Fatalf("unknown conversation = %q %q %v", sid, cwd, err)
	}
	if err := s.SaveConversation(ctx, "c", "sess-1", "/w/c"); err != nil {
		t.Fatal(err)
	}
	if sid, cwd, err := s.Conversation(ctx, "c"); err != nil || sid != "sess-1" || cwd != "/w/c" {
		t.Fatalf("Conversation = %q %q %v", sid, cwd, err)
	}
	if err := s.ForgetSession(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if sid, cwd, err := s.Conversation(ctx, "c"); err != nil || sid != "" || cwd != "/w/c" {
		t.Fatalf("after ForgetSession = %q %q %v, want no session, cwd kept", sid, cwd, err)
	}
}

func TestRest(t *testing.T) { forEachBackend(t, testRest) }

func testRest(t *testing.T, s *stores) {
	ctx := context.Background()
	if _, _, _, ok, err := s.TakeRest(ctx, "c"); err != nil || ok {
		t.Fatalf("TakeRest with nothing saved = %v %v", ok, err)
	}
	if err := s.SaveRest(ctx, "c", "old", "stale answer", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveRest(ctx, "c", "why?", "因为 because", 7); err != nil {
		t.Fatal(err)
	}
	title, answer, from, ok, err := s.TakeRest(ctx, "c")
	if err != nil || !ok || title != "why?" || answer != "因为 because" || from != 7 {
		t.Fatalf("TakeRest = %q %q %d %v %v, want the newest rest", title, answer, from, ok, err)
	}
	if _, _, _, ok, err := s.TakeRest(ctx, "c"); err != nil || ok {
		t.Fatalf("second TakeRest = %v %v, want it taken", ok, err)
	}
	if err := s.SaveRest(ctx, "c", "t", "abc", 1); err != nil {
		t.Fatal(err)
	}
	if ttl := s.Client().TTL(ctx, s.Keys().Conv("c").Rest()).Val(); ttl <= 0 || ttl > RestTTL {
		t.Fatalf("rest TTL %v, want (0, %v]", ttl, RestTTL)
	}
}

func TestLoadFrameAndLegacy(t *testing.T) { forEachBackend(t, testLoadFrameAndLegacy) }

// One pipeline reads what LoadFrame and LegacyFrame read, on every
// topology (the two keys are of different slots on a Cluster).
func testLoadFrameAndLegacy(t *testing.T, s *stores) {
	ctx := context.Background()
	if st, _, _, _, ok, _, legacyOK, err := s.LoadFrameAndLegacy(ctx, "s1"); err != nil || ok || legacyOK || st != "" {
		t.Fatalf("LoadFrameAndLegacy of an unknown stream = %q %v %v %v", st, ok, legacyOK, err)
	}
	if ok, err := s.SaveFrameUnless(ctx, "s1", "finished", "running", "single:alice", "alice", "writing"); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if err := s.Client().Set(ctx, s.Keys().LegacyFrame("s1"), `{"old":1}`, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	st, own, u, c, ok, legacy, legacyOK, err := s.LoadFrameAndLegacy(ctx, "s1")
	if err != nil || !ok || st != "running" || own != "single:alice" || u != "alice" || c != "writing" || !legacyOK || string(legacy) != `{"old":1}` {
		t.Fatalf("LoadFrameAndLegacy = %q %q %q %q %v %q %v %v", st, own, u, c, ok, legacy, legacyOK, err)
	}
}
