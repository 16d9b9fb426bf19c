package store

import (
	"context"
	"testing"
	"time"
)

func TestAppTokenCache(t *testing.T) { forEachBackend(t, testAppTokenCache) }

// One replica fills the cache while the others wait; storing the value frees
// the claim; a drop names the value it refuses, so a fresh one survives.
func testAppTokenCache(t *testing.T, s *stores) {
	ctx := context.Background()
	name := "tok-" + t.Name()
	if _, ok, err := s.CachedValue(ctx, name); err != nil || ok {
		t.Fatalf("empty cache: ok %v err %v", ok, err)
	}
	if ok, err := s.ClaimCacheFill(ctx, name, "A", time.Minute); err != nil || !ok {
		t.Fatalf("A's claim: %v %v", ok, err)
	}
	if ok, err := s.ClaimCacheFill(ctx, name, "B", time.Minute); err != nil || ok {
		t.Fatalf("B's claim while A fills: %v %v, want refused", ok, err)
	}
	if err := s.ReleaseCacheFill(ctx, name, "B"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.ClaimCacheFill(ctx, name, "B", time.Minute); ok {
		t.Fatal("B freed A's claim")
	}
	if err := s.CacheValue(ctx, name, "token-1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.CachedValue(ctx, name); err != nil || !ok || v != "token-1" {
		t.Fatalf("cached = %q %v %v", v, ok, err)
	}
	if ok, err := s.ClaimCacheFill(ctx, name, "B", time.Minute); err != nil || !ok {
		t.Fatalf("claim after the value was stored: %v %v, want free", ok, err)
	}
	if err := s.CacheValue(ctx, name, "token-2", time.Minute); err != nil {
		t.Fatal(err)
	}
	if dropped, err := s.DropCachedValue(ctx, name, "token-1"); err != nil || dropped {
		t.Fatalf("drop of the stale token-1: %v %v, want kept token-2", dropped, err)
	}
	if dropped, err := s.DropCachedValue(ctx, name, "token-2"); err != nil || !dropped {
		t.Fatalf("drop of token-2: %v %v", dropped, err)
	}
	if _, ok, _ := s.CachedValue(ctx, name); ok {
		t.Fatal("token-2 still cached")
	}
	if err := s.CacheValue(ctx, name, "x", 0); err == nil {
		t.Fatal("a zero TTL was accepted")
	}
}

func TestReserveSend(t *testing.T) { forEachBackend(t, testReserveSend) }

// 3 a minute and 5 an hour: the first three go at once, the next two a
// minute (plus the margin) after the first and second, the sixth an hour
// after the first; a reservation never goes before an earlier one.
func testReserveSend(t *testing.T, s *stores) {
	ctx := context.Background()
	t0 := time.UnixMilli(1_800_000_000_000)
	user := "u-" + t.Name()
	var got []time.Duration
	for range 6 {
		at, err := s.ReserveSend(ctx, "1000002", user, t0, 3, 5, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, at.Sub(t0))
	}
	want := []time.Duration{0, 0, 0, 61 * time.Second, 61 * time.Second, time.Hour + time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("reservations = %v, want %v", got, want)
		}
	}
	// Another user has a budget of their own.
	if at, err := s.ReserveSend(ctx, "1000002", user+"-other", t0, 3, 5, time.Second); err != nil || !at.Equal(t0) {
		t.Fatalf("other user's first send at %v (%v), want now", at, err)
	}
	if _, err := s.ReserveSend(ctx, "1000002", user, t0, 0, 0, 0); err == nil {
		t.Fatal("zero limits accepted")
	}
}

func TestAppCardCode(t *testing.T) { forEachBackend(t, testAppCardCode) }

func testAppCardCode(t *testing.T, s *stores) {
	ctx := context.Background()
	stream := "s-" + t.Name()
	if open, err := s.CardOpen(ctx, stream); err != nil || open {
		t.Fatalf("card open before it was sent: %v %v", open, err)
	}
	if err := s.SaveCardCode(ctx, stream, "RC1"); err != nil {
		t.Fatal(err)
	}
	if open, err := s.CardOpen(ctx, stream); err != nil || !open {
		t.Fatalf("card open after it was sent: %v %v", open, err)
	}
	if c, err := s.TakeCardCode(ctx, stream); err != nil || c != "RC1" {
		t.Fatalf("take = %q %v", c, err)
	}
	if c, err := s.TakeCardCode(ctx, stream); err != nil || c != "" {
		t.Fatalf("second take = %q %v, want none: the code works once", c, err)
	}
	if ok, err := s.ClaimFinish(ctx, stream); err != nil || !ok {
		t.Fatalf("first finish %v %v", ok, err)
	}
	if ok, err := s.ClaimFinish(ctx, stream); err != nil || ok {
		t.Fatalf("second finish %v %v, want refused", ok, err)
	}
}
