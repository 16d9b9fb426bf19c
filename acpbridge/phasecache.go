package acpbridge

import (
	"context"
	"sync"
)

// DefaultPhaseCacheSize bounds a PhaseCache made with NewPhaseCache. An entry
// lives only from an item's item/started to its item/completed, so even many
// concurrent turns stay far below it; the bound only guards against a stream
// that never completes its items.
const DefaultPhaseCacheSize = 65536

// PhaseCache is a PhaseStore that keeps phases in process in front of a
// backing PhaseStore (Redis in production). Writes land in memory at once
// and reach the backing store behind the caller's back (write-behind, see
// phasewriter.go), so a stalled Redis never stalls the one read loop that
// serves every conversation; reads are answered from memory and reach the
// backing store only on a miss, so a delta of an item whose item/started this
// process saw costs a map lookup, not a round trip. A miss that the backing
// store cannot answer is remembered too, so an unknown item costs one round
// trip, not one per delta.
//
// The zero value is not usable; make one with NewPhaseCache, and Close it
// when done.
type PhaseCache struct {
	backing PhaseStore // nil: memory only
	max     int

	mu      sync.RWMutex
	entries map[phaseKey]phaseEntry

	w phaseWriter
}

type phaseKey struct{ thread, item string }

type phaseEntry struct {
	phase string
	known bool // false: the backing store had no record (cached miss)
}

// NewPhaseCache returns a cache in front of backing (nil for memory only),
// holding at most DefaultPhaseCacheSize items.
func NewPhaseCache(backing PhaseStore) *PhaseCache {
	return NewPhaseCacheSize(backing, DefaultPhaseCacheSize)
}

// NewPhaseCacheSize is NewPhaseCache with an explicit bound (at least 1).
func NewPhaseCacheSize(backing PhaseStore, max int) *PhaseCache {
	if max < 1 {
		max = 1
	}
	c := &PhaseCache{backing: backing, max: max, entries: make(map[phaseKey]phaseEntry)}
	c.w.init(backing, max)
	return c
}

// SetPhase remembers the phase in memory and queues it for the backing
// store. It never waits for the backing store; the error is ErrPhaseBacklog
// when the queue was full and its oldest write was dropped (this process
// still routes every item it holds; another process may not).
func (c *PhaseCache) SetPhase(_ context.Context, threadID, itemID, phase string) error {
	k := phaseKey{threadID, itemID}
	c.put(k, phaseEntry{phase: phase, known: true})
	return c.w.enqueue(k, pendingWrite{phase: phase})
}

// Phase answers from memory, asking the backing store only on a miss.
func (c *PhaseCache) Phase(ctx context.Context, threadID, itemID string) (string, bool, error) {
	k := phaseKey{threadID, itemID}
	c.mu.RLock()
	e, hit := c.entries[k]
	c.mu.RUnlock()
	if hit {
		return e.phase, e.known, nil
	}
	if c.backing == nil {
		return "", false, nil
	}
	phase, ok, err := c.backing.Phase(ctx, threadID, itemID)
	if err != nil {
		// Not cached: a later delta may find the store reachable again.
		return "", false, err
	}
	c.put(k, phaseEntry{phase: phase, known: ok})
	return phase, ok, nil
}

// ForgetPhase drops the item from memory and queues its removal from the
// backing store, like SetPhase.
func (c *PhaseCache) ForgetPhase(_ context.Context, threadID, itemID string) error {
	k := phaseKey{threadID, itemID}
	c.mu.Lock()
	delete(c.entries, k)
	c.mu.Unlock()
	return c.w.enqueue(k, pendingWrite{forget: true})
}

// Flush waits until every queued write has reached the backing store, or
// ctx ends.
func (c *PhaseCache) Flush(ctx context.Context) error { return c.w.flush(ctx) }

// Close stops writing to the backing store; writes still queued are
// dropped. The cache keeps answering from memory.
func (c *PhaseCache) Close() { c.w.close() }

// Len reports how many items the cache holds in memory.
func (c *PhaseCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

func (c *PhaseCache) put(k phaseKey, e phaseEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, exists := c.entries[k]; !exists && len(c.entries) >= c.max {
		// Evict any one entry: the backing store still has it, so the cost of
		// a wrong choice is one round trip, never a misrouted delta.
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = e
}
