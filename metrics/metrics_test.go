package metrics

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/internal/testenv"
)

// Failed commands on a real Redis are counted by command; a missing key and
// a cancelled caller are not failures.
func TestRedisHookCountsFailedCommands(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(testenv.RedisOptions(t))
	t.Cleanup(func() { _ = c.Close() })
	c.AddHook(RedisHook(m))
	ctx := context.Background()
	key := testenv.Prefix(t, "metrics") + "k"
	t.Cleanup(func() { c.Del(context.Background(), key) })

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

	for op, want := range map[string]float64{"lpush": 1, "get": 0, "incr": 1, "client": 0} {
		if got := testutil.ToFloat64(m.redisErrors.WithLabelValues(op)); got != want {
			t.Errorf("wecodex_redis_errors_total{op=%q} = %v, want %v", op, got, want)
		}
	}
}

// The queue depth is the sum over conversations, and a conversation this
// replica stops running drops out.
func TestQueueDepthSumsConversations(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		conv    string
		waiting int
		want    float64
	}{
		{"single:a", 2, 2}, {"group:b", 3, 5}, {"single:a", 1, 4}, {"group:b", 0, 1}, {"single:a", 0, 0},
	} {
		m.QueueDepth(step.conv, step.waiting)
		if got := testutil.ToFloat64(m.queueDepth); got != step.want {
			t.Fatalf("after %s=%d: depth %v, want %v", step.conv, step.waiting, got, step.want)
		}
	}
}

// Registering twice on one registry fails instead of panicking: there is no
// global state, and a duplicate is the caller's mistake to see.
func TestNewOnTheSameRegistryTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg); err == nil {
		t.Fatal("second New on one registry succeeded; want a duplicate registration error")
	}
}
