package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// RunFirst puts a lost turn ahead of the messages sent after it: under the
// caller's lease (the message it popped goes back first in line), on a free
// lease (taken with the lost turn running), and for another holder (first
// in its queue).
func TestRunFirst(t *testing.T) { forEachBackend(t, testRunFirst) }

func testRunFirst(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c-runfirst"
	for _, it := range []string{"two", "three"} {
		if _, _, err := s.Enqueue(ctx, conv, []byte(it), 10); err != nil {
			t.Fatal(err)
		}
	}
	tt, err := taken(s.TakeTurn(ctx, conv, "a", time.Minute))
	if err != nil || string(tt.Item) != "two" {
		t.Fatalf("TakeTurn = %+v %v", tt, err)
	}
	run, err := s.RunFirst(ctx, conv, "a", tt.Token, []byte("one"), time.Minute)
	if err != nil || run != tt.Token {
		t.Fatalf("RunFirst under the lease = %d %v, want token %d", run, err, tt.Token)
	}
	wantQueue(t, s, conv, "two", "three")
	// Done with every message: the queue empties.
	if ok, err := s.ReleaseLease(ctx, conv, run); err != nil || !ok {
		t.Fatalf("ReleaseLease = %v %v", ok, err)
	}
	if _, _, err := s.Enqueue(ctx, conv, []byte("x"), 10); err != nil {
		t.Fatal(err)
	}
	for {
		tt, err = taken(s.TakeTurn(ctx, conv, "b", time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if tt.Token == 0 {
			break
		}
		if _, err := s.ReleaseLease(ctx, conv, tt.Token); err != nil {
			t.Fatal(err)
		}
	}
	// The queue is empty and the lease free: RunFirst takes it.
	run, err = s.RunFirst(ctx, conv, "b", 0, []byte("lost"), time.Minute)
	if err != nil || run == 0 {
		t.Fatalf("RunFirst on a free lease = %d %v, want a token", run, err)
	}
	if r, tok, err := s.Lease(ctx, conv); err != nil || r != "b" || tok != run {
		t.Fatalf("lease = %s %d %v, want b %d", r, tok, err, run)
	}
	// Another holder: the item waits first in its queue.
	if _, _, err := s.Enqueue(ctx, conv, []byte("later"), 10); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RunFirst(ctx, conv, "c", 0, []byte("lost2"), time.Minute); err != nil || got != 0 {
		t.Fatalf("RunFirst while b holds the lease = %d %v, want 0", got, err)
	}
	wantQueue(t, s, conv, "lost2", "later")
	if p, err := s.Pending(ctx, 10); err != nil || !slices.Contains(p, conv) {
		t.Fatalf("pending %q %v, want %s listed", p, err, conv)
	}
}

func wantQueue(t *testing.T, s *stores, conv string, want ...string) {
	t.Helper()
	q, err := s.Queued(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range q {
		got = append(got, string(b))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("queue %q, want %q", got, want)
	}
}
