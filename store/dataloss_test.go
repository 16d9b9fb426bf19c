package store

import (
	"context"
	"testing"
	"time"
)

// The first missing frame after the data mark vanished opens the loss
// window; later ones see it open until it lapses, then closed.
func TestNoteMissingFrame(t *testing.T) { forEachBackend(t, testNoteMissingFrame) }

func testNoteMissingFrame(t *testing.T, s *stores) {
	ctx := context.Background()
	for _, want := range []bool{true, true} {
		if lost, err := s.NoteMissingFrame(ctx, time.Hour); err != nil || lost != want {
			t.Fatalf("NoteMissingFrame = %v, %v; want %v", lost, err, want)
		}
	}
	// The window lapses; the mark stays.
	if err := s.Client().Del(ctx, s.Webhook.keys.DataLoss()).Err(); err != nil {
		t.Fatal(err)
	}
	if lost, err := s.NoteMissingFrame(ctx, time.Hour); err != nil || lost {
		t.Fatalf("NoteMissingFrame with the mark and no window = %v, %v; want false", lost, err)
	}
	if ttl, err := s.Client().PTTL(ctx, s.Webhook.keys.DataMark()).Result(); err != nil || ttl <= DataMarkTTL-time.Hour {
		t.Fatalf("data mark TTL %v, %v; want about %v", ttl, err, DataMarkTTL)
	}
	// Redis loses everything again.
	if err := s.Client().Del(ctx, s.Webhook.keys.DataMark()).Err(); err != nil {
		t.Fatal(err)
	}
	if lost, err := s.NoteMissingFrame(ctx, time.Hour); err != nil || !lost {
		t.Fatalf("NoteMissingFrame after the mark vanished = %v, %v; want true", lost, err)
	}
}

// A turn runs while its lease is held on a replica with a heartbeat.
func TestTurnRunning(t *testing.T) { forEachBackend(t, testTurnRunning) }

func testTurnRunning(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "single:alice"
	running := func(want bool, when string) {
		t.Helper()
		if got, err := s.TurnRunning(ctx, conv); err != nil || got != want {
			t.Fatalf("TurnRunning %s = %v, %v; want %v", when, got, err, want)
		}
	}
	running(false, "with no lease")
	if _, _, err := s.Enqueue(ctx, conv, []byte("m1"), 10); err != nil {
		t.Fatal(err)
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "r1", time.Minute)); err != nil || tt.Token == 0 {
		t.Fatalf("TakeTurn = %+v, %v", tt, err)
	}
	running(false, "held by a replica with no heartbeat")
	if err := s.Heartbeat(ctx, "r1", time.Minute); err != nil {
		t.Fatal(err)
	}
	running(true, "held by a live replica")
	if err := s.Heartbeat(ctx, "r1", 0); err != nil {
		t.Fatal(err)
	}
	running(false, "once the replica is gone")
}

// A recorded message is claimed by its fetcher while it renews; once the
// claim lapses one other process takes it over; a forgotten one is gone.
func TestFetchRecords(t *testing.T) { forEachBackend(t, testFetchRecords) }

func testFetchRecords(t *testing.T, s *stores) {
	ctx := context.Background()
	if ok, err := s.RecordFetch(ctx, "s1", []byte("m1"), "a", time.Minute); err != nil || !ok {
		t.Fatalf("RecordFetch = %v, %v", ok, err)
	}
	if ok, err := s.RecordFetch(ctx, "s1", []byte("again"), "b", time.Minute); err != nil || ok {
		t.Fatalf("RecordFetch of a redelivery = %v, %v; want kept as it was", ok, err)
	}
	if got, err := s.TakeLapsedFetches(ctx, "b", time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("TakeLapsedFetches while claimed = %q, %v", got, err)
	}
	if held, err := s.RenewFetch(ctx, "s1", "b", time.Minute); err != nil || held {
		t.Fatalf("RenewFetch by another = %v, %v", held, err)
	}
	// a dies: its claim lapses.
	if err := s.Client().Del(ctx, s.Webhook.keys.FetchClaim("s1")).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TakeLapsedFetches(ctx, "b", time.Minute); err != nil || len(got) != 1 || string(got["s1"]) != "m1" {
		t.Fatalf("TakeLapsedFetches after the lapse = %q, %v; want s1: m1", got, err)
	}
	if got, err := s.TakeLapsedFetches(ctx, "c", time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("TakeLapsedFetches by a third = %q, %v; want nothing, b holds it", got, err)
	}
	if held, err := s.RenewFetch(ctx, "s1", "b", time.Minute); err != nil || !held {
		t.Fatalf("RenewFetch by b = %v, %v", held, err)
	}
	if err := s.ForgetFetch(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Client().Exists(ctx, s.Webhook.keys.Fetches(), s.Webhook.keys.Fetch("s1"), s.Webhook.keys.FetchClaim("s1")).Result(); err != nil || n != 0 {
		t.Fatalf("%d keys left after ForgetFetch, %v", n, err)
	}
}
