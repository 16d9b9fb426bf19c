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
