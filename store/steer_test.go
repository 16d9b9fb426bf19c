package store

import (
	"context"
	"testing"
	"time"
)

func TestSteer(t *testing.T) { forEachBackend(t, testSteer) }

// A steer is kept and announced only while a turn holds the lease, and the
// holder takes every waiting one at once, oldest first.
func testSteer(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c3"
	if running, err := s.Steer(ctx, conv, []byte("early")); err != nil || running {
		t.Fatalf("Steer on idle = %v %v, want false", running, err)
	}
	if _, _, err := s.Enqueue(ctx, conv, []byte("turn"), 10); err != nil {
		t.Fatal(err)
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "r", time.Minute)); err != nil || tt.Token == 0 {
		t.Fatal(tt.Token, err)
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	ready := make(chan struct{})
	got := make(chan string, 2)
	go func() { _ = s.WatchSteers(watchCtx, func() { close(ready) }, func(c string) { got <- c }) }()
	<-ready
	for _, item := range []string{"one", "two"} {
		if running, err := s.Steer(ctx, conv, []byte(item)); err != nil || !running {
			t.Fatalf("Steer(%s) = %v %v, want true", item, running, err)
		}
		if c := <-got; c != conv {
			t.Fatalf("announced %q, want %q", c, conv)
		}
	}
	items, err := s.TakeSteers(ctx, conv)
	if err != nil || len(items) != 2 || string(items[0]) != "one" || string(items[1]) != "two" {
		t.Fatalf("TakeSteers = %q %v, want one, two", items, err)
	}
	if items, err := s.TakeSteers(ctx, conv); err != nil || len(items) != 0 {
		t.Fatalf("TakeSteers again = %q %v, want none", items, err)
	}
}
