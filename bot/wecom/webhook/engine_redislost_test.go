package webhook_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/testenv"
)

// heldFrames is the shared store with the frame writes of turns held while
// hold is on: a write waits until release. It forces "Redis lost the frame,
// then a refresh, before the turn writes its next frame".
type heldFrames struct {
	fullStore
	mu   sync.Mutex
	gate chan struct{} // nil: writes pass
}

func (s *heldFrames) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
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

func (s *heldFrames) SaveFrameUnless(ctx context.Context, streamID, keep, state, owner, user, content string) (bool, error) {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return s.fullStore.SaveFrameUnless(ctx, streamID, keep, state, owner, user, content)
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

// Redis loses everything mid-turn and WeCom refreshes before the turn writes
// its frame again: the refresh is answered from the running turn, not
// finished, and writes nothing; the card then goes on and finishes with the
// whole answer. A refresh once the turn is gone from every replica and the
// frame is gone is unknown again.
func TestRefreshAfterRedisLostTheFrameOfARunningTurn(t *testing.T) {
	prefix := testenv.Prefix(t, "redislost")
	st := &heldFrames{fullStore: testenv.OpenStores(t, prefix)}
	r := newReplica(t, st, testConfig(t, "r1"))
	r.run(t)

	const text = "half:g"
	whole := "answer to: " + text
	m := msg("m1", "alice", text)
	stream := receive(t, r.e, m).StreamID
	asker := webhook.Asker{Conversation: m.Conversation, User: "alice"}
	half := whole[:len(whole)/2]
	shown := waitFrame(t, r.e, stream, "showing the first half", func(f webhook.Frame) bool {
		return strings.Contains(f.Content, half) && !f.Finish
	})

	st.hold()
	t.Cleanup(st.release) // before the replica stops, should the test fail while held
	flushPrefix(t, prefix)
	if _, _, _, _, ok, err := st.LoadFrame(context.Background(), stream); err != nil || ok {
		t.Fatalf("frame after the flush: ok %v, err %v; want none", ok, err)
	}

	f, ok, err := r.e.Frame(context.Background(), stream, asker)
	if err != nil || !ok {
		t.Fatalf("refresh of the running stream: ok %v, err %v", ok, err)
	}
	if f.Finish || f.Content != shown.Content {
		t.Fatalf("refresh of the running stream = %+v; want not finished, showing %q", f, shown.Content)
	}
	// Someone else learns nothing of it.
	if f, ok, _ := r.e.Frame(context.Background(), stream, webhook.Asker{Conversation: msg("x", "bob", "").Conversation, User: "bob"}); ok {
		t.Fatalf("bob's refresh of alice's running stream = %+v, want unknown", f)
	}
	if _, _, _, _, ok, err := st.LoadFrame(context.Background(), stream); err != nil || ok {
		t.Fatalf("frame after the refresh: ok %v, err %v; the refresh must write nothing", ok, err)
	}

	st.release()
	r.agent.release("g")
	final := waitFinished(t, r.e, stream)
	if !strings.Contains(final.Content, whole) {
		t.Fatalf("final frame %q does not carry the whole answer %q", final.Content, whole)
	}
	got, ok, err := r.e.Frame(context.Background(), stream, asker)
	if err != nil || !ok || !got.Finish || got.Content != final.Content {
		t.Fatalf("refresh after the end = %+v, %v, %v; want the final frame", got, ok, err)
	}

	// The turn is over here: a lost frame is unknown again.
	eventually(t, func() string { return "the turn never ended" }, func() bool {
		flushPrefix(t, prefix)
		_, ok, err := r.e.Frame(context.Background(), stream, asker)
		return err == nil && !ok
	})
}
