package store

import (
	"context"
	"testing"
	"time"
)

func TestTurnLimitCount(t *testing.T) { forEachBackend(t, testTurnLimitCount) }

// Two turns of a limit of two are taken, the third is not; one given back
// can be taken again. A turn given back in an hour that counted none (the
// hour turned since it was taken) leaves no count behind.
func testTurnLimitCount(t *testing.T, s *stores) {
	ctx := context.Background()
	l := NewLimits(s.DB)
	now := time.Date(2026, 12, 2, 10, 59, 0, 0, time.UTC)
	for i, want := range []bool{true, true, false} {
		ok, reset, err := l.TakeTurn(ctx, "bob", now, 2)
		if err != nil || ok != want || !reset.Equal(now.Truncate(time.Hour).Add(time.Hour)) {
			t.Fatalf("turn %d: taken %v reset %v (%v), want %v at 11:00", i+1, ok, reset, err, want)
		}
	}
	if err := l.ReturnTurn(ctx, "bob", now); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := l.TakeTurn(ctx, "bob", now, 2); err != nil || !ok {
		t.Fatalf("a turn given back was not taken again: %v %v", ok, err)
	}

	next := now.Add(time.Hour)
	if err := l.ReturnTurn(ctx, "bob", next); err != nil {
		t.Fatal(err)
	}
	key := s.Keys().LimitTurns("bob", next.Truncate(time.Hour).Unix())
	if n, err := s.Client().Exists(ctx, key).Result(); err != nil || n != 0 {
		t.Fatalf("a turn given back in an hour without a count left %s (%d, %v)", key, n, err)
	}
	if used, _, err := l.TurnsUsed(ctx, "bob", next); err != nil || used != 0 {
		t.Fatalf("turns used in the next hour: %d (%v), want 0", used, err)
	}
}
