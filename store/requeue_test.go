package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// RequeueTurn puts the running item back first in line and frees the lease
// in one step, only for the current holder; the next TakeTurn runs it again
// before the messages that waited behind it, and leaves no orphan.
func TestRequeueTurn(t *testing.T) { forEachBackend(t, testRequeueTurn) }

func testRequeueTurn(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c-requeue"
	for _, it := range []string{"one", "two"} {
		if _, _, err := s.Enqueue(ctx, conv, []byte(it), 10); err != nil {
			t.Fatal(err)
		}
	}
	tt, err := taken(s.TakeTurn(ctx, conv, "a", time.Minute))
	tok, it := tt.Token, tt.Item
	if err != nil || string(it) != "one" {
		t.Fatalf("TakeTurn = %d %q %v", tok, it, err)
	}
	if ok, err := s.RequeueTurn(ctx, conv, tok+1); err != nil || ok {
		t.Fatalf("RequeueTurn with a stale token = %v %v, want refused", ok, err)
	}
	if ok, err := s.RequeueTurn(ctx, conv, tok); err != nil || !ok {
		t.Fatalf("RequeueTurn = %v %v", ok, err)
	}
	if _, held, _ := s.Lease(ctx, conv); held != 0 {
		t.Fatalf("lease still held by %d after the requeue", held)
	}
	q, err := s.Queued(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range q {
		got = append(got, string(b))
	}
	if !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("queue after the requeue: %q, want one first", got)
	}
	if p, err := s.Pending(ctx, 10); err != nil || !slices.Contains(p, conv) {
		t.Fatalf("pending %q %v, want %s listed", p, err, conv)
	}
	tt, err = taken(s.TakeTurn(ctx, conv, "b", time.Minute))
	tok2, it, orphan := tt.Token, tt.Item, tt.Orphan
	if err != nil || tok2 <= tok || string(it) != "one" || orphan != nil {
		t.Fatalf("TakeTurn after the requeue = %d %q orphan %q %v, want one again, no orphan", tok2, it, orphan, err)
	}
	if ok, err := s.RequeueTurn(ctx, conv, tok); err != nil || ok {
		t.Fatalf("RequeueTurn by the old holder = %v %v, want refused", ok, err)
	}
}
