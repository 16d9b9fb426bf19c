package acpbridge

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
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

func (s *countingStore) setFail(err error) {
	s.mu.Lock()
	s.fail = err
	s.mu.Unlock()
}

func (s *countingStore) get(t, i string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.m[[2]string{t, i}]
	return p, ok
}

// waitSets waits until the store has seen n SetPhase calls.
func (s *countingStore) waitSets(t *testing.T, n int) {
	t.Helper()
	for {
		s.mu.Lock()
		got := s.sets
		s.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond) // polling a condition, not a timing bet
	}
}

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
	if s.fail != nil {
		return s.fail
	}
	delete(s.m, [2]string{t, i})
	return nil
}

func TestPhaseCacheWritesBehindAndReadsFromMemory(t *testing.T) {
	ctx := context.Background()
	backing := newCountingStore()
	c := newCache(t, backing, DefaultPhaseCacheSize)
	if err := c.SetPhase(ctx, "th", "msg_1", "commentary"); err != nil {
		t.Fatal(err)
	}
	flush(t, c)
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
	flush(t, c)
	if c.Len() != 0 || len(backing.m) != 0 {
		t.Fatalf("after forget: cache %d entries, backing %d, want 0 and 0", c.Len(), len(backing.m))
	}
}

func TestPhaseCacheSecondProcessFindsPhaseInBackingOnce(t *testing.T) {
	ctx := context.Background()
	backing := newCountingStore()
	first := newCache(t, backing, DefaultPhaseCacheSize)
	second := newCache(t, backing, DefaultPhaseCacheSize)
	if err := first.SetPhase(ctx, "th", "msg_1", "commentary"); err != nil {
		t.Fatal(err)
	}
	flush(t, first)
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
	c := newCache(t, backing, 3)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if err := c.SetPhase(ctx, "th", id, "commentary"); err != nil && !errors.Is(err, ErrPhaseBacklog) {
			t.Fatal(err)
		}
		flush(t, c)
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

	backing.setFail(errors.New("redis down"))
	if err := c.SetPhase(ctx, "th", "f", "commentary"); err != nil {
		t.Fatalf("SetPhase with failing backing = %v, want nil: the write is retried behind", err)
	}
	if p, ok, err := c.Phase(ctx, "th", "f"); p != "commentary" || !ok || err != nil {
		t.Fatalf("while the backing fails: %q %v %v, want commentary true nil from memory", p, ok, err)
	}
	if _, _, err := c.Phase(ctx, "th", "zz"); err == nil {
		t.Fatal("miss with failing backing: want error")
	}
	// The write is retried until the backing answers again.
	backing.waitSets(t, 3)
	backing.setFail(nil)
	flush(t, c)
	if p, ok := backing.get("th", "f"); !ok || p != "commentary" {
		t.Fatalf("backing after recovery: %q %v, want commentary true", p, ok)
	}
}

// A full queue drops its oldest write and says so; the newest writes and
// every in-memory answer stay.
func TestPhaseCacheBacklogDropsOldestWrite(t *testing.T) {
	ctx := context.Background()
	backing := &blockingStore{countingStore: newCountingStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	c := newCache(t, backing, 2)
	errs := []error{c.SetPhase(ctx, "th", "a", "final_answer")}
	<-backing.entered // "a" is in flight: the queue holds what follows
	for _, id := range []string{"b", "c", "d"} {
		errs = append(errs, c.SetPhase(ctx, "th", id, "final_answer"))
	}
	if errs[0] != nil || errs[1] != nil || errs[2] != nil || !errors.Is(errs[3], ErrPhaseBacklog) {
		t.Fatalf("SetPhase errors = %v, want nil, nil, nil, ErrPhaseBacklog", errs)
	}
	if p, ok, err := c.Phase(ctx, "th", "d"); p != "final_answer" || !ok || err != nil {
		t.Fatalf("memory d = %q %v %v, want final_answer true nil", p, ok, err)
	}
	close(backing.release)
	flush(t, c)
	for id, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := backing.get("th", id); ok != want {
			t.Fatalf("backing holds %s: %v, want %v", id, ok, want)
		}
	}
}

// blockingStore holds every SetPhase until release is closed, saying on
// entered when one arrives.
type blockingStore struct {
	*countingStore
	entered chan struct{}
	release chan struct{}
}

func (s *blockingStore) SetPhase(ctx context.Context, t, i, p string) error {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	<-s.release
	return s.countingStore.SetPhase(ctx, t, i, p)
}

// A forget that replaces a queued set leaves nothing behind in the backing
// store.
func TestPhaseCacheForgetReplacesQueuedSet(t *testing.T) {
	ctx := context.Background()
	backing := newCountingStore()
	backing.setFail(errors.New("redis down"))
	c := newCache(t, backing, DefaultPhaseCacheSize)
	_ = c.SetPhase(ctx, "th", "m", "commentary")
	_ = c.ForgetPhase(ctx, "th", "m")
	backing.setFail(nil)
	flush(t, c)
	if _, ok := backing.get("th", "m"); ok {
		t.Fatal("backing still holds a forgotten item")
	}
}

func newCache(t *testing.T, backing PhaseStore, max int) *PhaseCache {
	c := NewPhaseCacheSize(backing, max)
	t.Cleanup(c.Close)
	return c
}

func flush(t *testing.T, c *PhaseCache) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard, not a speed bound
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkPhaseCacheHit(b *testing.B) {
	ctx := context.Background()
	c := NewPhaseCache(newCountingStore())
	defer c.Close()
	_ = c.SetPhase(ctx, "019a-thread", "msg_0123456789", "commentary")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := c.Phase(ctx, "019a-thread", "msg_0123456789"); !ok {
			b.Fatal("miss")
		}
	}
}
