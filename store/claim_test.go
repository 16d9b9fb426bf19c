package store

import (
	"context"
	"testing"
	"time"
)

// A claimed lease keeps every turn from starting until it is released,
// leaving the waiting messages queued; a claim is refused while a turn
// holds the lease, and while a dead holder's turn waits to be handed over.
func TestClaimLease(t *testing.T) { forEachBackend(t, testClaimLease) }

func testClaimLease(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c1"
	claim, err := s.ClaimLease(ctx, conv, "replica-a", time.Minute)
	if err != nil || claim == 0 {
		t.Fatalf("ClaimLease on a free conversation = %d %v, want a token", claim, err)
	}
	if again, err := s.ClaimLease(ctx, conv, "replica-b", time.Minute); err != nil || again != 0 {
		t.Fatalf("second ClaimLease = %d %v, want 0", again, err)
	}
	if _, _, err := s.Enqueue(ctx, conv, []byte("one"), 10); err != nil {
		t.Fatal(err)
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "replica-b", time.Minute)); err != nil || tt.Token != 0 || tt.Item != nil || tt.Queued != 1 {
		t.Fatalf("TakeTurn while claimed = %+v %v, want no token, one queued", tt, err)
	}
	if ok, err := s.ReleaseLease(ctx, conv, claim); err != nil || !ok {
		t.Fatalf("ReleaseLease(claim) = %v %v, want released", ok, err)
	}
	tt, err := taken(s.TakeTurn(ctx, conv, "replica-b", 50*time.Millisecond))
	if err != nil || tt.Token <= claim || string(tt.Item) != "one" || tt.Orphan != nil {
		t.Fatalf("TakeTurn after the claim = %+v %v, want a token > %d and one", tt, err, claim)
	}
	if c, err := s.ClaimLease(ctx, conv, "replica-a", time.Minute); err != nil || c != 0 {
		t.Fatalf("ClaimLease while a turn holds = %d %v, want 0", c, err)
	}
	// The turn's holder dies: its lease lapses, its running record stays.
	waitLeaseFree(t, s, conv)
	if c, err := s.ClaimLease(ctx, conv, "replica-a", time.Minute); err != nil || c != 0 {
		t.Fatalf("ClaimLease over a dead holder's turn = %d %v, want 0", c, err)
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "replica-a", time.Minute)); err != nil || string(tt.Orphan) != "one" {
		t.Fatalf("TakeTurn after the refused claim = %+v %v, want one orphaned", tt, err)
	}
	if c, err := s.ClaimLease(ctx, conv, "replica-a", time.Minute); err != nil || c == 0 {
		t.Fatalf("ClaimLease once the orphan is handed over = %d %v, want a token", c, err)
	}
}
