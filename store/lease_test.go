package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// An old holder whose lease expired can neither renew, release nor take the
// next message once another replica holds the lease with a larger token.
func TestLeaseFencing(t *testing.T) { forEachBackend(t, testLeaseFencing) }

func testLeaseFencing(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c1"
	for _, item := range []string{"one", "two", "three"} {
		if _, _, err := s.Enqueue(ctx, conv, []byte(item), 10); err != nil {
			t.Fatal(err)
		}
	}
	tt, err := taken(s.TakeTurn(ctx, conv, "replica-a", 50*time.Millisecond))
	old, item, left, orphan := tt.Token, tt.Item, tt.Queued, tt.Orphan
	if err != nil || old == 0 || string(item) != "one" || left != 2 || orphan != nil {
		t.Fatalf("TakeTurn = %d %q %d %q %v, want a token, one, 2, no orphan", old, item, left, orphan, err)
	}
	// While held, nobody else takes it.
	if tt, err := taken(s.TakeTurn(ctx, conv, "replica-b", time.Minute)); err != nil || tt.Token != 0 || tt.Item != nil || tt.Queued != 2 || tt.Orphan != nil {
		t.Fatalf("TakeTurn while held = %d %q %d %q %v, want 0 nil 2 nil", tt.Token, tt.Item, tt.Queued, tt.Orphan, err)
	}
	waitLeaseFree(t, s, conv)
	tt, err = taken(s.TakeTurn(ctx, conv, "replica-b", time.Minute))
	fresh, item, orphan := tt.Token, tt.Item, tt.Orphan
	if err != nil || fresh <= old || string(item) != "two" || string(orphan) != "one" {
		t.Fatalf("TakeTurn after expiry = %d %q %q %v, want a token > %d, two, and one orphaned", fresh, item, orphan, err, old)
	}
	if held, stop, err := s.RenewLease(ctx, conv, old, time.Minute); err != nil || held || stop {
		t.Fatalf("old RenewLease = %v %v %v, want not held", held, stop, err)
	}
	if ok, err := s.ReleaseLease(ctx, conv, old); err != nil || ok {
		t.Fatalf("old ReleaseLease = %v %v, want false", ok, err)
	}
	if it, held, err := s.NextTurn(ctx, conv, old, time.Minute); err != nil || held || it != nil {
		t.Fatalf("old NextTurn = %q %v %v, want nothing, not held", it, held, err)
	}
	replica, token, err := s.Lease(ctx, conv)
	if err != nil || replica != "replica-b" || token != fresh {
		t.Fatalf("Lease = %q %d %v, want replica-b %d", replica, token, err, fresh)
	}
	if owner, err := s.Owner(ctx, conv); err != nil || owner != "replica-b" {
		t.Fatalf("Owner = %q %v, want replica-b", owner, err)
	}
	// The new holder goes on: three, then the queue is empty and the lease free.
	if it, held, err := s.NextTurn(ctx, conv, fresh, time.Minute); err != nil || !held || string(it) != "three" {
		t.Fatalf("NextTurn = %q %v %v, want three", it, held, err)
	}
	if it, held, err := s.NextTurn(ctx, conv, fresh, time.Minute); err != nil || !held || it != nil {
		t.Fatalf("NextTurn on empty = %q %v %v, want nil, held", it, held, err)
	}
	if _, token, _ := s.Lease(ctx, conv); token != 0 {
		t.Fatalf("lease still held by %d after the queue emptied", token)
	}
}

// A turn's item is recorded running from the script that pops it until its
// holder moves on or releases; only a lease that lapsed with a turn recorded
// leaves an orphan, handed to exactly one TakeTurn, even with an empty queue.
// Meanwhile the conversation stays pending so a poll finds the orphan.
func TestRunningTurnRecord(t *testing.T) { forEachBackend(t, testRunningTurnRecord) }

func testRunningTurnRecord(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c3"
	running := func() string {
		t.Helper()
		v, err := s.Client().Get(ctx, s.Keys().Conv(conv).Running()).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		return v
	}
	pending := func() int {
		t.Helper()
		p, err := s.Pending(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(p)
	}
	enqueue := func(items ...string) {
		t.Helper()
		for _, it := range items {
			if _, _, err := s.Enqueue(ctx, conv, []byte(it), 10); err != nil {
				t.Fatal(err)
			}
		}
	}

	// A normal holder: each item is recorded while it runs, and the record
	// goes with the lease, so nothing is ever orphaned.
	enqueue("one", "two")
	tt, err := taken(s.TakeTurn(ctx, conv, "a", time.Minute))
	tok, orphan := tt.Token, tt.Orphan
	if err != nil || tok == 0 || orphan != nil || running() != "one" {
		t.Fatalf("TakeTurn = %d %q %v, running %q", tok, orphan, err, running())
	}
	if ttl := s.Client().PTTL(ctx, s.Keys().Conv(conv).Running()).Val(); ttl <= time.Minute || ttl > RunningTTL {
		t.Fatalf("running TTL %v, want (lease TTL, %v]", ttl, RunningTTL)
	}
	if held, _, err := s.RenewLease(ctx, conv, tok, time.Minute); err != nil || !held {
		t.Fatal(held, err)
	}
	if it, held, err := s.NextTurn(ctx, conv, tok, time.Minute); err != nil || !held || string(it) != "two" || running() != "two" {
		t.Fatalf("NextTurn = %q %v %v, running %q", it, held, err, running())
	}
	// Queue empty, a turn running: the conversation stays pending.
	if err := s.SettlePending(ctx, conv); err != nil || pending() != 1 {
		t.Fatalf("SettlePending while a turn runs: %v, %d pending, want 1", err, pending())
	}
	if it, held, err := s.NextTurn(ctx, conv, tok, time.Minute); err != nil || !held || it != nil || running() != "" {
		t.Fatalf("NextTurn on empty = %q %v %v, running %q, want released", it, held, err, running())
	}
	enqueue("three")
	if tt, err = taken(s.TakeTurn(ctx, conv, "a", time.Minute)); err != nil || tt.Token == 0 {
		t.Fatal(tt.Token, err)
	}
	tok = tt.Token
	if ok, err := s.ReleaseLease(ctx, conv, tok); err != nil || !ok || running() != "" {
		t.Fatalf("ReleaseLease = %v %v, running %q, want released", ok, err, running())
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "b", time.Minute)); err != nil || tt.Token != 0 || tt.Item != nil || tt.Queued != 0 || tt.Orphan != nil {
		t.Fatalf("TakeTurn after releases = %d %q %d %q %v, want nothing", tt.Token, tt.Item, tt.Queued, tt.Orphan, err)
	}
	if err := s.SettlePending(ctx, conv); err != nil || pending() != 0 {
		t.Fatalf("SettlePending when idle: %v, %d pending, want 0", err, pending())
	}

	// A holder that dies mid-turn with nothing queued behind it.
	enqueue("four")
	if tt, err = taken(s.TakeTurn(ctx, conv, "a", 50*time.Millisecond)); err != nil || tt.Token == 0 {
		t.Fatal(tt.Token, err)
	}
	tok = tt.Token
	waitLeaseFree(t, s, conv)
	if err := s.SettlePending(ctx, conv); err != nil || pending() != 1 {
		t.Fatalf("SettlePending with an orphan: %v, %d pending, want 1", err, pending())
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "b", time.Minute)); err != nil || tt.Token != 0 || tt.Item != nil || tt.Queued != 0 || string(tt.Orphan) != "four" {
		t.Fatalf("TakeTurn on the orphan = %d %q %d %q %v, want only the orphan four", tt.Token, tt.Item, tt.Queued, tt.Orphan, err)
	}
	if tt, err := taken(s.TakeTurn(ctx, conv, "c", time.Minute)); err != nil || tt.Orphan != nil {
		t.Fatalf("second TakeTurn = %q %v, want the orphan handed out once", tt.Orphan, err)
	}
	if err := s.SettlePending(ctx, conv); err != nil || pending() != 0 {
		t.Fatalf("SettlePending after the orphan: %v, %d pending, want 0", err, pending())
	}
	// The old holder's token can no longer renew, move on or release.
	if held, _, err := s.RenewLease(ctx, conv, tok, time.Minute); err != nil || held {
		t.Fatalf("dead holder's RenewLease = %v %v", held, err)
	}
}

func waitLeaseFree(t *testing.T, s *stores, conv string) {
	t.Helper()
	for range 500 {
		_, token, err := s.Lease(context.Background(), conv)
		if err != nil {
			t.Fatal(err)
		}
		if token == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("lease never expired")
}

// A stop request reaches only the turn holding the lease when it was made.
func TestStopRequest(t *testing.T) { forEachBackend(t, testStopRequest) }

func testStopRequest(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "c2"
	if running, err := s.RequestStop(ctx, conv); err != nil || running {
		t.Fatalf("RequestStop on idle = %v %v, want false", running, err)
	}
	for _, item := range []string{"one", "two"} {
		if _, _, err := s.Enqueue(ctx, conv, []byte(item), 10); err != nil {
			t.Fatal(err)
		}
	}
	tt, err := taken(s.TakeTurn(ctx, conv, "r", time.Minute))
	token := tt.Token
	if err != nil || token == 0 {
		t.Fatal(token, err)
	}

	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	ready := make(chan struct{})
	got := make(chan string, 1)
	watched := make(chan error, 1)
	go func() {
		watched <- s.WatchStops(watchCtx, func() { close(ready) }, func(c string) { got <- c })
	}()
	<-ready

	if running, err := s.RequestStop(ctx, conv); err != nil || !running {
		t.Fatalf("RequestStop = %v %v, want true", running, err)
	}
	if c := <-got; c != conv {
		t.Fatalf("announced %q, want %q", c, conv)
	}
	if held, stop, err := s.RenewLease(ctx, conv, token, time.Minute); err != nil || !held || !stop {
		t.Fatalf("RenewLease = %v %v %v, want held and stop", held, stop, err)
	}
	// The next turn under the same lease is not stopped by it.
	if it, held, err := s.NextTurn(ctx, conv, token, time.Minute); err != nil || !held || string(it) != "two" {
		t.Fatalf("NextTurn = %q %v %v", it, held, err)
	}
	if held, stop, err := s.RenewLease(ctx, conv, token, time.Minute); err != nil || !held || stop {
		t.Fatalf("RenewLease after NextTurn = %v %v %v, want held, no stop", held, stop, err)
	}
	stopWatch()
	if err := <-watched; err != nil {
		t.Fatalf("WatchStops = %v, want nil after its context ended", err)
	}
}

func TestHeartbeat(t *testing.T) { forEachBackend(t, testHeartbeat) }

func testHeartbeat(t *testing.T, s *stores) {
	ctx := context.Background()
	if err := s.Heartbeat(ctx, "r1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if alive, err := s.ReplicaAlive(ctx, "r1"); err != nil || !alive {
		t.Fatalf("alive = %v %v, want true", alive, err)
	}
	if err := s.Heartbeat(ctx, "r1", 0); err != nil {
		t.Fatal(err)
	}
	if alive, err := s.ReplicaAlive(ctx, "r1"); err != nil || alive {
		t.Fatalf("alive after retiring = %v %v, want false", alive, err)
	}
}

// forEachBackend runs f on the real Redis, on a Redis Cluster and a
// Sentinel setup when scripts/with-redis-topologies.sh started them, and on
// the embedded one, whose Lua and command support differ in details the
// scripts must not depend on.
func forEachBackend(t *testing.T, f func(t *testing.T, s *stores)) {
	t.Run("redis", func(t *testing.T) { f(t, openRealStore(t)) })
	t.Run("cluster", func(t *testing.T) { f(t, openClusterStore(t)) })
	t.Run("sentinel", func(t *testing.T) { f(t, openSentinelStore(t)) })
	t.Run("embedded", func(t *testing.T) {
		s, err := Open(context.Background(), Options{Prefix: "wecodex-test:"}, discardLog())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
		f(t, allOf(s))
	})
}
