package store

import (
	"context"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// Failed commands on a real Redis are counted by command; a missing key and
// a cancelled caller are not failures.
func TestCountErrorsByCommand(t *testing.T) {
	s := openRealStore(t)
	var mu sync.Mutex
	failures := map[string]float64{}
	s.CountErrors(func(command string) { mu.Lock(); failures[command]++; mu.Unlock() })
	c := s.Client()
	ctx := context.Background()
	key := s.Keys().prefix + "k"

	if err := c.Set(ctx, key, "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctx, key, "x").Err(); err == nil {
		t.Fatal("LPUSH on a string succeeded; want WRONGTYPE")
	}
	if err := c.Get(ctx, key+"-missing").Err(); err != redis.Nil {
		t.Fatalf("GET missing: %v, want redis.Nil", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_ = c.Get(cancelled, key).Err()
	_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, key) // not an integer
		p.Get(ctx, key)
		return nil
	})

	mu.Lock()
	defer mu.Unlock()
	for op, want := range map[string]float64{"lpush": 1, "get": 0, "incr": 1, "client": 0} {
		if got := failures[op]; got != want {
			t.Errorf("failures of %q = %v, want %v", op, got, want)
		}
	}
}
