package store

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/internal/failoverlock"
)

// The Cluster and the Sentinel setup are started by
// scripts/with-redis-topologies.sh (make test), which exports these.
const (
	envClusterAddrs   = "REDIS_CLUSTER_ADDRS"
	envSentinelAddrs  = "REDIS_SENTINEL_ADDRS"
	envSentinelMaster = "REDIS_SENTINEL_MASTER"
)

func openClusterStore(t testing.TB) *stores {
	t.Helper()
	addrs := os.Getenv(envClusterAddrs)
	if addrs == "" {
		t.Skip(envClusterAddrs + " is not set: no Redis Cluster to run on (make test starts one with scripts/with-redis-topologies.sh)")
	}
	return openStoreWithOwnPrefix(t, Options{Addrs: strings.Split(addrs, ",")})
}

func openSentinelStore(t testing.TB) *stores {
	t.Helper()
	addrs, master := sentinelSetup(t)
	return openStoreWithOwnPrefix(t, Options{Addrs: addrs, MasterName: master})
}

func sentinelSetup(t testing.TB) ([]string, string) {
	t.Helper()
	addrs, master := os.Getenv(envSentinelAddrs), os.Getenv(envSentinelMaster)
	if addrs == "" || master == "" {
		t.Skip(envSentinelAddrs + " or " + envSentinelMaster + " is not set: no Sentinel setup to run on (make test starts one with scripts/with-redis-topologies.sh)")
	}
	return strings.Split(addrs, ","), master
}

// A Sentinel failover forced between a turn's start and its end: the store
// follows the new master, the holder's lease and the queue behind it were
// replicated, so the turn goes on and the next message is taken in order.
func TestStoreFollowsSentinelFailover(t *testing.T) {
	addrs, master := sentinelSetup(t)
	failoverlock.Hold(t, addrs[0]) // cmd/wecodex's e2e fails the same master over
	s := openStoreWithOwnPrefix(t, Options{Addrs: addrs, MasterName: master})
	ctx := context.Background()
	const conv = "failover"
	for _, it := range []string{"one", "two"} {
		if _, _, pos, _, err := s.ClaimAndEnqueue(ctx, conv, "u", "m-"+it, "s-"+it, []byte(it), 5); err != nil || pos == 0 {
			t.Fatalf("ClaimAndEnqueue(%s) = %d %v", it, pos, err)
		}
	}
	tok, item, _, _, err := fields((s.TakeTurn(ctx, conv, "a", time.Minute)))
	if err != nil || string(item) != "one" {
		t.Fatalf("TakeTurn = %d %q %v", tok, item, err)
	}
	// Sentinel promotes a replica without waiting for it to catch up; wait
	// for it here so the test checks the store, not replication lag.
	if n, err := s.Client().Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT for the replica = %d %v", n, err)
	}
	before := forceFailover(t, addrs[0], master)
	waitMasterMoved(t, addrs[0], master, before)
	waitWritable(t, s)

	if held, _, err := s.RenewLease(ctx, conv, tok, time.Minute); err != nil || !held {
		t.Fatalf("RenewLease after the failover = %v %v, want held", held, err)
	}
	if rec, claimed, _, _, err := s.ClaimAndEnqueue(ctx, conv, "u", "m-one", "s-again", []byte("one"), 5); err != nil || claimed || rec != "s-one" {
		t.Fatalf("repeat after the failover = %q %v %v, want the first stream", rec, claimed, err)
	}
	if it, held, err := s.NextTurn(ctx, conv, tok, time.Minute); err != nil || !held || string(it) != "two" {
		t.Fatalf("NextTurn after the failover = %q %v %v, want two", it, held, err)
	}
}

func sentinelClient(t testing.TB, addr string) *redis.SentinelClient {
	t.Helper()
	c := redis.NewSentinelClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func masterAddr(t testing.TB, sentinel, master string) string {
	t.Helper()
	v, err := sentinelClient(t, sentinel).GetMasterAddrByName(context.Background(), master).Result()
	if err != nil || len(v) != 2 {
		t.Fatalf("sentinel get-master-addr-by-name %s = %v %v", master, v, err)
	}
	return v[0] + ":" + v[1]
}

// forceFailover asks the sentinel to fail over and returns the master it
// replaced. Sentinel refuses while an earlier failover settles or before it
// has seen the replica in good health (INPROG, NOGOODSLAVE): ask again.
func forceFailover(t testing.TB, sentinel, master string) string {
	t.Helper()
	c := sentinelClient(t, sentinel)
	before := masterAddr(t, sentinel, master)
	var err error
	for range 300 {
		if err = c.Failover(context.Background(), master).Err(); err == nil {
			return before
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("SENTINEL FAILOVER %s: %v", master, err)
	return ""
}

// waitMasterMoved waits until the sentinel names a master other than before.
func waitMasterMoved(t testing.TB, sentinel, master, before string) {
	t.Helper()
	for range 300 {
		if masterAddr(t, sentinel, master) != before {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("master still %s after the failover", before)
}

// waitWritable waits until the store's client writes to the new master: it
// learns of the switch from the sentinel, and the old master turns replica
// (READONLY) on its own schedule.
func waitWritable(t testing.TB, s *stores) {
	t.Helper()
	key := s.Keys().Prefix() + "probe"
	var err error
	for range 300 {
		if err = s.Client().Set(context.Background(), key, "1", time.Minute).Err(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no write reached the new master: %v", err)
}
