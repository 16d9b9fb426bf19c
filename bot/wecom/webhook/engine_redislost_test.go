package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// heldFrames is the shared store with the frame writes of turns held while
// hold is on: a write waits until release. It forces "Redis lost the frame,
// then a refresh, before the turn writes its next frame".
type heldFrames struct {
	fullStore
	mu   sync.Mutex
	gate chan struct{} // nil: writes pass
	// inflight is read-held by every write that passed the gate, so hold
	// waits for a write that began before it: such a write must not land
	// after the test's flush.
	inflight sync.RWMutex
}

// hold holds the writes that begin from now on and returns once the ones
// already under way are done.
func (s *heldFrames) hold() {
	s.mu.Lock()
	s.gate = make(chan struct{})
	s.mu.Unlock()
	s.inflight.Lock()
	//lint:ignore SA2001 taking the lock is the point: it waits for the writes in flight
	s.inflight.Unlock()
}

// release lets the held writes through; without a hold it does nothing.
func (s *heldFrames) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
}

// pass waits while a hold is on, then runs write with inflight read-held.
func (s *heldFrames) pass(ctx context.Context, write func() (bool, error)) (bool, error) {
	for {
		s.mu.Lock()
		g := s.gate
		if g == nil {
			s.inflight.RLock()
			s.mu.Unlock()
			defer s.inflight.RUnlock()
			return write()
		}
		s.mu.Unlock()
		select {
		case <-g:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func (s *heldFrames) SaveFrameUnless(ctx context.Context, streamID, keep, state, owner, user, content string) (bool, error) {
	return s.pass(ctx, func() (bool, error) {
		return s.fullStore.SaveFrameUnless(ctx, streamID, keep, state, owner, user, content)
	})
}

func (s *heldFrames) SaveFrameItemsUnless(ctx context.Context, streamID, keep, state, owner, user, content, items string) (bool, error) {
	return s.pass(ctx, func() (bool, error) {
		return s.fullStore.SaveFrameItemsUnless(ctx, streamID, keep, state, owner, user, content, items)
	})
}

// flushPrefix deletes every key under prefix: Redis restarted empty, as far
// as this test's replicas can tell.
func flushPrefix(t *testing.T, prefix string) {
	t.Helper()
	ctx := context.Background()
	c := testenv.Redis(t)
	iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		if err := c.Del(ctx, iter.Val()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
}

// restoreTicks drives the write-back of lost frames by hand: tick makes
// every running turn of the replica try once, and tells whether one wrote.
type restoreTicks struct {
	mu    sync.Mutex
	ticks map[string]chan time.Time
	done  chan bool
}

func newRestoreTicks(ch *webhook.Channel) *restoreTicks {
	r := &restoreTicks{ticks: map[string]chan time.Time{}, done: make(chan bool, 16)}
	webhook.SetRestoreHooks(ch, r.of, func(_ string, stored bool) { r.done <- stored })
	return r
}

func (r *restoreTicks) of(stream string) <-chan time.Time { return r.ch(stream) }

func (r *restoreTicks) ch(stream string) chan time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ticks[stream] == nil {
		r.ticks[stream] = make(chan time.Time)
	}
	return r.ticks[stream]
}

// tick makes the turn of stream write its frame back if it is lost, and
// returns whether it wrote.
func (r *restoreTicks) tick(t *testing.T, stream string) bool {
	t.Helper()
	select {
	case r.ch(stream) <- time.Now():
	case <-time.After(hangGuard):
		t.Fatalf("the turn of %s never waited for its restore tick", stream)
	}
	select {
	case stored := <-r.done:
		return stored
	case <-time.After(hangGuard):
		t.Fatalf("the turn of %s never tried to write its frame back", stream)
		return false
	}
}

// Redis loses everything mid-turn and WeCom refreshes on the replica that
// does not run the turn, before the turn wrote anything again (its frame
// writes are held): the refresh is answered not finished. The owner writes
// its frame back on its next restore tick, every replica then shows it,
// and the card goes on and finishes with the whole answer. Ten runs, each
// with its own Redis keys.
func TestRefreshOnAnotherReplicaAfterRedisLostTheFrame(t *testing.T) {
	for run := range 10 {
		t.Run(fmt.Sprint(run), testRefreshOnAnotherReplicaAfterRedisLostTheFrame)
	}
}

func testRefreshOnAnotherReplicaAfterRedisLostTheFrame(t *testing.T) {
	prefix := testenv.Prefix(t, "redislost")
	st := &heldFrames{fullStore: testenv.OpenStores(t, prefix)}
	owner := newReplica(t, st, testConfig(t, "r1"))
	ticks := newRestoreTicks(owner.e.ch)
	other := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "r2"))
	// Only the owner runs turns: were r2 to take alice's message from the
	// queue, it would answer the refresh from its own running turn.
	owner.run(t)

	const text = "half:g"
	whole := "answer to: " + text
	m := msg("m1", "alice", text)
	stream := receive(t, owner.e, m).StreamID
	asker := single("alice")
	shown := waitFrame(t, other.e, stream, "showing the first half", func(f webhook.Frame) bool {
		return strings.Contains(f.Content, whole[:len(whole)/2]) && !f.Finish
	})

	st.hold()
	t.Cleanup(st.release) // before the replicas stop, should the test fail while held
	flushPrefix(t, prefix)
	ctx := context.Background()
	if _, _, _, _, ok, err := st.LoadFrame(ctx, stream); err != nil || ok {
		t.Fatalf("frame after the flush: ok %v, err %v; want none", ok, err)
	}

	working := webhook.Frame{StreamID: stream, Content: webhook.TextStillWorking}
	for range 2 { // the refresh that finds the loss, and one after it
		if f, ok, err := other.e.Frame(ctx, stream, asker); err != nil || !ok || f != working {
			t.Fatalf("refresh on r2 after the loss = %+v, %v, %v; want %+v", f, ok, err, working)
		}
	}
	// It says no more than of a stream that never was, to anyone.
	if f, ok, err := other.e.Frame(ctx, "nosuchstream", single("bob")); err != nil || !ok || f != (webhook.Frame{StreamID: "nosuchstream", Content: webhook.TextStillWorking}) {
		t.Fatalf("bob's refresh of a made-up stream after the loss = %+v, %v, %v", f, ok, err)
	}
	// The owner answers from its running turn: what it showed last, which
	// is what r2 showed unless a newer frame is held.
	mine, ok, err := owner.e.Frame(ctx, stream, asker)
	if err != nil || !ok || mine.Finish || !strings.HasPrefix(mine.Content, shown.Content[:strings.Index(shown.Content, "answer t")]) {
		t.Fatalf("refresh on r1 after the loss = %+v, %v, %v; want not finished, as %+v", mine, ok, err, shown)
	}
	if _, _, _, _, ok, err := st.LoadFrame(ctx, stream); err != nil || ok {
		t.Fatalf("frame after the refreshes: ok %v, err %v; a refresh must write nothing", ok, err)
	}

	if !ticks.tick(t, stream) {
		t.Fatal("the owner's restore tick did not write the lost frame back")
	}
	if f, ok, err := other.e.Frame(ctx, stream, asker); err != nil || !ok || f != mine {
		t.Fatalf("refresh on r2 after the write-back = %+v, %v, %v; want %+v", f, ok, err, mine)
	}
	if ticks.tick(t, stream) {
		t.Fatal("a second restore tick wrote over a frame that was there")
	}

	st.release()
	owner.agent.release("g")
	final := waitFinished(t, other.e, stream)
	if !strings.Contains(final.Content, whole) {
		t.Fatalf("final frame %q does not carry the whole answer %q", final.Content, whole)
	}
	got, ok, err := other.e.Frame(ctx, stream, asker)
	if err != nil || !ok || got != final {
		t.Fatalf("refresh on r2 after the end = %+v, %v, %v; want the final frame", got, ok, err)
	}
}

// Past the loss window a refresh of a lost frame is answered not finished
// while the conversation's turn holds its lease on a live replica (the
// owner has re-taken it), and unknown once no replica runs it.
func TestRefreshOfALostFrameAfterTheLossWindow(t *testing.T) {
	prefix := testenv.Prefix(t, "redislost")
	st := &heldFrames{fullStore: testenv.OpenStores(t, prefix)}
	owner := newReplica(t, st, testConfig(t, "r1"))
	newRestoreTicks(owner.e.ch) // never ticked: the frame stays lost
	// A loss window of 3 ms: over long before the test looks again.
	other := newReplicaWith(t, testenv.OpenStores(t, prefix), testConfig(t, "r2"), webhook.Options{RestoreEvery: time.Millisecond})
	owner.run(t)

	m := msg("m1", "alice", "half:g")
	stream := receive(t, owner.e, m).StreamID
	asker := single("alice")
	waitFrame(t, other.e, stream, "running", func(f webhook.Frame) bool { return strings.Contains(f.Content, "answer t") && !f.Finish })

	st.hold()
	t.Cleanup(st.release)
	flushPrefix(t, prefix)
	ctx := context.Background()
	working := webhook.Frame{StreamID: stream, Content: webhook.TextStillWorking}
	if f, ok, err := other.e.Frame(ctx, stream, asker); err != nil || !ok || f != working {
		t.Fatalf("refresh that finds the loss = %+v, %v, %v; want %+v", f, ok, err, working)
	}
	lossKey := store.NewKeys(prefix).DataLoss()
	redis := testenv.Redis(t)
	eventually(t, func() string { return "the loss window never closed" }, func() bool {
		n, err := redis.Exists(ctx, lossKey).Result()
		return err == nil && n == 0
	})
	// The owner re-takes its lease and beats its heartbeat on its own.
	eventually(t, func() string { return "the owner never re-took its lease" }, func() bool {
		ok, err := st.TurnRunning(ctx, m.Conversation.Key())
		return err == nil && ok
	})
	if f, ok, err := other.e.Frame(ctx, stream, asker); err != nil || !ok || f != working {
		t.Fatalf("refresh past the window while the turn runs = %+v, %v, %v; want %+v", f, ok, err, working)
	}
	// Another conversation runs nothing: unknown.
	if f, ok, err := other.e.Frame(ctx, stream, single("bob")); err != nil || ok {
		t.Fatalf("bob's refresh past the window = %+v, %v, %v; want unknown", f, ok, err)
	}

	st.release()
	owner.agent.release("g")
	waitFinished(t, other.e, stream)
	flushPrefix(t, prefix)
	if f, ok, err := other.e.Frame(ctx, stream, asker); err != nil || !ok || f != working {
		t.Fatalf("refresh that finds the second loss = %+v, %v, %v; want %+v", f, ok, err, working)
	}
	eventually(t, func() string { return "the second loss window never closed" }, func() bool {
		n, err := redis.Exists(ctx, lossKey).Result()
		return err == nil && n == 0
	})
	if f, ok, err := other.e.Frame(ctx, stream, asker); err != nil || ok {
		t.Fatalf("refresh once no replica runs the turn = %+v, %v, %v; want unknown", f, ok, err)
	}
}
