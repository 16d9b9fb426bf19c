package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/internal/failoverlock"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Redis killed and restarted empty while a turn runs: the holder re-takes
// the lease nobody else holds, the turn finishes with its whole answer, the
// next message is answered, and the model sees each message once.
func TestE2ERedisRestartedEmptyMidTurn(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "The whole", " answer", " survived.")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Second answer.")),
	))
	srv := testenv.NewRedisServer(t)
	srv.Start()
	e.redisURL = &redis.Options{Addr: srv.Addr()}
	b := e.serve(t, "5m30s")
	logsOnFailure(t, b)
	ctx := within(t, 3*time.Minute)

	s := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "first question"}, gate)
	waitForFrame(t, ctx, b.sim, s.ID, "The whole")
	srv.Restart()
	// The holder's next renewal finds the lease gone (within a third of its
	// TTL): it re-takes it, or (before the fix) ends the turn.
	waitLog(t, ctx, b, `"lease re-taken" or the turn's end`, func(l map[string]any) bool {
		return l["msg"] == "lease re-taken" || l["msg"] == "turn ended"
	})
	gate.Release()
	if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "The whole answer survived." {
		t.Fatalf("final frame %q, want the whole answer; frames %q", last.Content, seen)
	}
	next, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "second question"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, next.ID); last.Content != "Second answer." {
		t.Fatalf("next message's final frame %q; frames %q", last.Content, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 2 {
		t.Fatalf("model saw %d requests, want 2 (one per message)", n)
	}
}

// Redis frozen while three users each send a message, WeCom delivering each
// again while it gets no answer: every message is answered by exactly one
// turn, whichever delivery's work landed in Redis.
func TestE2ERedisStallWhileThreeUsersSend(t *testing.T) {
	users := []string{"alice", "bob", "carol"}
	scripts := map[string][]sm.Response{}
	for _, u := range users {
		scripts["question from "+u] = []sm.Response{sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Answer for "+u+"."))}
	}
	e := newE2E(t, sm.ByPrompt(scripts))
	srv := testenv.NewRedisServer(t)
	srv.Start()
	e.redisURL = &redis.Options{Addr: srv.Addr()}
	b := e.serve(t, "5m30s")
	logsOnFailure(t, b)
	ctx := within(t, 3*time.Minute)
	if code, _ := get(t, b.base+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d before the stall", code)
	}

	srv.Freeze()
	msgs := make([]wecomtest.Message, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		msgs[i] = wecomtest.Message{MsgID: "stall-" + u, From: u, Text: "question from " + u}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.sim.Send(ctx, msgs[i]); err == nil {
				t.Errorf("%s's message was answered while Redis was frozen", u)
			}
		}()
	}
	wg.Wait() // every first delivery failed: answered 5xx, or not in time
	srv.Thaw()

	for i, u := range users {
		var s *wecomtest.Stream
		var err error
		for range 3 { // WeCom's redeliveries
			if s, err = b.sim.Send(ctx, msgs[i]); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("%s's message after the stall: %v", u, err)
		}
		if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "Answer for "+u+"." {
			t.Fatalf("%s's final frame %q; frames %q", u, last.Content, seen)
		}
	}
	if n := len(e.h.Server.ModelRequests()); n != len(users) {
		t.Fatalf("model saw %d requests, want %d (one turn per message)", n, len(users))
	}
}

// Redis gone (its data kept, as with AOF) while a turn ends: the final frame
// and the lease release are retried until Redis answers, the card finishes
// with the answer, and the lease is released, not left to lapse, so the next
// message runs at once.
func TestE2ERedisGoneWhileATurnEnds(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e := newE2E(t, sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Kept", " despite", " the outage.")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Next one.")),
	))
	srv := testenv.NewRedisServer(t)
	srv.Durable = true
	srv.Start()
	e.redisURL = &redis.Options{Addr: srv.Addr()}
	b := e.serve(t, "5m30s")
	logsOnFailure(t, b)
	ctx := within(t, 3*time.Minute)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })

	s := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "finish during an outage"}, gate)
	waitForFrame(t, ctx, b.sim, s.ID, "Kept")
	srv.Kill()
	gate.Release()
	// Down for at least two tries at the final frame (before the fix there
	// was one, and the frame was dropped).
	waitLog(t, ctx, b, "the final frame failing twice", func(l map[string]any) bool {
		return l["msg"] == "publish frame" && l["final"] == true && l["attempt"] == float64(2)
	})
	srv.Start()
	waitReady(t, ctx, b)
	if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "Kept despite the outage." {
		t.Fatalf("final frame %q, want the answer; frames %q", last.Content, seen)
	}
	// Released by its holder: a lease that lapsed would leave the turn's
	// running record behind for another replica to find.
	lease, running := e.prefix+"{conv:single:alice}:lease", e.prefix+"{conv:single:alice}:running"
	for rdb.Exists(ctx, lease).Val() == 1 {
		select {
		case <-ctx.Done():
			t.Fatal("the lease was never released")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n := rdb.Exists(ctx, running).Val(); n != 0 {
		t.Fatal("the lease lapsed with the turn still recorded running: it was never released")
	}
	next, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "and now?"})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, next.ID); last.Content != "Next one." {
		t.Fatalf("next final frame %q; frames %q", last.Content, seen)
	}
	if n := len(e.h.Server.ModelRequests()); n != 2 {
		t.Fatalf("model saw %d requests, want 2", n)
	}
}

// One end-to-end turn on a Redis Cluster, and one on Sentinel with a
// failover forced while the turn runs.
func TestE2ERedisClusterAndSentinel(t *testing.T) {
	t.Run("cluster", func(t *testing.T) {
		addrs := os.Getenv("REDIS_CLUSTER_ADDRS")
		if addrs == "" {
			t.Skip("REDIS_CLUSTER_ADDRS is not set: no Redis Cluster (make test starts one with scripts/with-redis-topologies.sh)")
		}
		e := newE2E(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Answered on a cluster."))))
		e.redisAddr = addrs
		e.redisURL = &redis.Options{}
		b := e.serve(t, "5m30s")
		logsOnFailure(t, b)
		ctx := within(t, 2*time.Minute)
		s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "cluster?"}, wecomtest.WithRedeliveries(1))
		if err != nil || s.Redelivered[0].ID != s.ID {
			t.Fatalf("send: %v (%+v)", err, s)
		}
		if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "Answered on a cluster." {
			t.Fatalf("final frame %q; frames %q", last.Content, seen)
		}
	})
	t.Run("sentinel failover", func(t *testing.T) {
		addrs, master := os.Getenv("REDIS_SENTINEL_ADDRS"), os.Getenv("REDIS_SENTINEL_MASTER")
		if addrs == "" || master == "" {
			t.Skip("REDIS_SENTINEL_ADDRS or REDIS_SENTINEL_MASTER is not set: no Sentinel setup (make test starts one with scripts/with-redis-topologies.sh)")
		}
		failoverlock.Hold(t, strings.Split(addrs, ",")[0]) // store's tests fail the same master over
		gate := sm.NewGate()
		t.Cleanup(gate.Release)
		e := newE2E(t, sm.Sequence(
			sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Through", " a failover.")).WithHold(1, gate),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "After it.")),
		))
		e.redisAddr, e.master = addrs, master
		e.redisURL = &redis.Options{}
		b := e.serve(t, "5m30s")
		logsOnFailure(t, b)
		ctx := within(t, 3*time.Minute)
		s := sendUntilGate(t, ctx, b.sim, wecomtest.Message{From: "alice", Text: "sentinel?"}, gate)
		waitForFrame(t, ctx, b.sim, s.ID, "Through")
		moved := sentinelFailover(t, ctx, strings.Split(addrs, ",")[0], master)
		// Writes that reach the old master after the promotion are lost
		// when it turns replica (Sentinel replicates asynchronously): the
		// turn ends only once serve's client follows the new master.
		waitLog(t, ctx, b, "go-redis following the new master", func(l map[string]any) bool {
			d, _ := l["detail"].(string)
			return l["msg"] == "redis client" && strings.Contains(d, "new master") && strings.Contains(d, moved)
		})
		gate.Release()
		if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != "Through a failover." {
			t.Fatalf("final frame %q; frames %q", last.Content, seen)
		}
		next, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "still there?"})
		if err != nil {
			t.Fatal(err)
		}
		if last, seen := follow(t, ctx, b.sim, next.ID); last.Content != "After it." {
			t.Fatalf("next final frame %q; frames %q", last.Content, seen)
		}
	})
}

// sentinelFailover forces a failover and waits until the sentinel names a
// new master, which it returns (host:port). Sentinel refuses while an
// earlier one settles: ask again.
func sentinelFailover(t *testing.T, ctx context.Context, sentinel, master string) string {
	t.Helper()
	c := redis.NewSentinelClient(&redis.Options{Addr: sentinel})
	defer c.Close()
	addr := func() string {
		v, err := c.GetMasterAddrByName(ctx, master).Result()
		if err != nil || len(v) != 2 {
			t.Fatalf("sentinel get-master-addr-by-name: %v %v", v, err)
		}
		return v[0] + ":" + v[1]
	}
	before := addr()
	for err := c.Failover(ctx, master).Err(); err != nil; err = c.Failover(ctx, master).Err() {
		select {
		case <-ctx.Done():
			t.Fatalf("SENTINEL FAILOVER: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	for {
		if now := addr(); now != before {
			return now
		}
		select {
		case <-ctx.Done():
			t.Fatal("the sentinel never named a new master")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitLog waits until the serve process wrote a line ok accepts.
func waitLog(t *testing.T, ctx context.Context, b *botProc, what string, ok func(map[string]any) bool) {
	t.Helper()
	for {
		for _, l := range b.logs.snapshot() {
			if ok(l) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no log line showed %s; logs:\n%s", what, b.logs)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
