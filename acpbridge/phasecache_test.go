package acpbridge

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// countingStore is a PhaseStore that counts calls, standing in for the Redis
// store only where the test is about how often the cache reaches it.
type countingStore struct {
	mu                 sync.Mutex
	m                  map[[2]string]string
	sets, gets, forget int
	fail               error
}

func newCountingStore() *countingStore { return &countingStore{m: map[[2]string]string{}} }

func (s *countingStore) SetPhase(_ context.Context, t, i, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sets++
	if s.fail != nil {
		return s.fail
	}
	s.m[[2]string{t, i}] = p
	return nil
}

func (s *countingStore) Phase(_ context.Context, t, i string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	if s.fail != nil {
		return "", false, s.fail
	}
	p, ok := s.m[[2]string{t, i}]
	return p, ok, nil
}

func (s *countingStore) ForgetPhase(_ context.Context, t, i string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forget++
	delete(s.m, [2]string{t, i})
	return nil
}

func TestPhaseCacheWritesThroughAndReadsFromMemory(t *testing.T) {
	ctx := context.Background()
	backing := newCountingStore()
	c := NewPhaseCache(backing)
	if err := c.SetPhase(ctx, "th", "msg_1", "commentary"); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		p, ok, err := c.Phase(ctx, "th", "msg_1")
		if err != nil || !ok || p != "commentary" {
			t.Fatalf("Phase = %q %v %v, want commentary true nil", p, ok, err)
		}
	}
	if backing.sets != 1 || backing.gets != 0 {
		t.Fatalf("backing calls: sets=%d gets=%d, want 1 and 0", backing.sets, backing.gets)
	}
	if got := backing.m[[2]string{"th", "msg_1"}]; got != "commentary" {
		t.Fatalf("backing holds %q, want commentary", got)
	}
	if err := c.ForgetPhase(ctx, "th", "msg_1"); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 0 || len(backing.m) != 0 {
		t.Fatalf("after forget: cache %d entries, backing %d, want 0 and 0", c.Len(), len(backing.m))
	}
}

func TestPhaseCacheSecondProcessFindsPhaseInBackingOnce(t *testing.T) {
	ctx := context.Background()
	backing := newCountingStore()
	first, second := NewPhaseCache(backing), NewPhaseCache(backing)
	if err := first.SetPhase(ctx, "th", "msg_1", "commentary"); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		p, ok, err := second.Phase(ctx, "th", "msg_1")
		if err != nil || !ok || p != "commentary" {
			t.Fatalf("second.Phase = %q %v %v, want commentary true nil", p, ok, err)
		}
	}
	// Unknown items are looked up once, then answered from memory.
	for range 50 {
		if _, ok, err := second.Phase(ctx, "th", "msg_unknown"); ok || err != nil {
			t.Fatalf("unknown item: ok=%v err=%v, want false nil", ok, err)
		}
	}
	if backing.gets != 2 {
		t.Fatalf("backing gets = %d, want 2 (one per item)", backing.gets)
	}
}

func TestPhaseCacheNullPhaseIsKnown(t *testing.T) {
	ctx := context.Background()
	c := NewPhaseCache(nil)
	if err := c.SetPhase(ctx, "th", "m", ""); err != nil {
		t.Fatal(err)
	}
	p, ok, err := c.Phase(ctx, "th", "m")
	if p != "" || !ok || err != nil {
		t.Fatalf("Phase = %q %v %v, want \"\" true nil", p, ok, err)
	}
}

func TestPhaseCacheBoundedAndKeepsMemoryOnBackingError(t *testing.T) {
	ctx := context.Background()
	backing := newCountingStore()
	c := NewPhaseCacheSize(backing, 3)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if err := c.SetPhase(ctx, "th", id, "commentary"); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 3 {
		t.Fatalf("Len = %d, want 3", c.Len())
	}
	// Evicted items are still routed right, from the backing store.
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if p, ok, _ := c.Phase(ctx, "th", id); !ok || p != "commentary" {
			t.Fatalf("item %s: %q %v, want commentary true", id, p, ok)
		}
	}

	backing.fail = errors.New("redis down")
	if err := c.SetPhase(ctx, "th", "f", "commentary"); err == nil {
		t.Fatal("SetPhase with failing backing: want error")
	}
	if p, ok, err := c.Phase(ctx, "th", "f"); p != "commentary" || !ok || err != nil {
		t.Fatalf("after failed write: %q %v %v, want commentary true nil from memory", p, ok, err)
	}
	if _, _, err := c.Phase(ctx, "th", "zz"); err == nil {
		t.Fatal("miss with failing backing: want error")
	}
}

func BenchmarkPhaseCacheHit(b *testing.B) {
	ctx := context.Background()
	c := NewPhaseCache(newCountingStore())
	_ = c.SetPhase(ctx, "019a-thread", "msg_0123456789", "commentary")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := c.Phase(ctx, "019a-thread", "msg_0123456789"); !ok {
			b.Fatal("miss")
		}
	}
}
