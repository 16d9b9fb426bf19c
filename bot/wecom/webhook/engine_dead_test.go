package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
)

// serverLost is the whole frame of a turn whose replica stopped mid-turn.
const serverLost = "❌ Failed: the server running this turn stopped before it finished. Send the message again."

const lostWarning = `level=WARN msg="the replica running a turn stopped before finishing it; its card now says so"`

var errGone = errors.New("replica is gone")

// failingStore is one replica's view of the shared store that can lose that
// replica. After pause its lease renewals and heartbeats fail, as for a
// replica frozen or cut off from Redis: its lease lapses while its turn may
// still write later. After kill every call the engine makes in the
// background fails too, as for a replica killed with SIGKILL: it never
// writes, releases or takes anything again. refused gets the stream of every
// turn frame the store would not write.
type failingStore struct {
	fullStore
	paused  atomic.Bool
	killed  atomic.Bool
	refused chan string
}

func newFailingStore(st fullStore) *failingStore {
	return &failingStore{fullStore: st, refused: make(chan string, 16)}
}

func (s *failingStore) pause() { s.paused.Store(true) }
func (s *failingStore) kill()  { s.paused.Store(true); s.killed.Store(true) }

func (s *failingStore) RenewLease(ctx context.Context, conv string, token int64, ttl time.Duration) (bool, bool, error) {
	if s.paused.Load() {
		return false, false, errGone
	}
	return s.fullStore.RenewLease(ctx, conv, token, ttl)
}

func (s *failingStore) Heartbeat(ctx context.Context, replica string, ttl time.Duration) error {
	if s.paused.Load() {
		return errGone
	}
	return s.fullStore.Heartbeat(ctx, replica, ttl)
}

func (s *failingStore) SaveFrameUnless(ctx context.Context, streamID, keep, state, owner, user, content string) (bool, error) {
	if s.killed.Load() {
		return false, errGone
	}
	ok, err := s.fullStore.SaveFrameUnless(ctx, streamID, keep, state, owner, user, content)
	if err == nil && !ok {
		s.refused <- streamID
	}
	return ok, err
}

func (s *failingStore) SaveFrameIf(ctx context.Context, streamID, ifState, state, owner, user, content string) (bool, error) {
	if s.killed.Load() {
		return false, errGone
	}
	return s.fullStore.SaveFrameIf(ctx, streamID, ifState, state, owner, user, content)
}

func (s *failingStore) TakeTurn(ctx context.Context, conv, replica string, ttl time.Duration) (int64, []byte, int, []byte, error) {
	if s.killed.Load() {
		return 0, nil, 0, nil, errGone
	}
	return s.fullStore.TakeTurn(ctx, conv, replica, ttl)
}

func (s *failingStore) NextTurn(ctx context.Context, conv string, token int64, ttl time.Duration) ([]byte, bool, error) {
	if s.killed.Load() {
		return nil, false, errGone
	}
	return s.fullStore.NextTurn(ctx, conv, token, ttl)
}

func (s *failingStore) ReleaseLease(ctx context.Context, conv string, token int64) (bool, error) {
	if s.killed.Load() {
		return false, errGone
	}
	return s.fullStore.ReleaseLease(ctx, conv, token)
}

func (s *failingStore) Pending(ctx context.Context, max int) ([]string, error) {
	if s.killed.Load() {
		return nil, errGone
	}
	return s.fullStore.Pending(ctx, max)
}

// logBuffer collects an engine's log lines for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// lostLines returns the log lines saying a turn's replica stopped.
func lostLines(logs string) []string {
	var out []string
	for line := range strings.Lines(logs) {
		if strings.Contains(line, lostWarning) {
			out = append(out, line)
		}
	}
	return out
}

// shortLease makes a replica's lease and heartbeat lapse within a second of
// it stopping, so the tests wait little for the takeover.
func shortLease(cfg bot.Config) bot.Config {
	cfg.LeaseTTL = time.Second
	cfg.HeartbeatTTL = time.Second
	return cfg
}

// A replica killed mid-turn, with agent.rerun_orphaned: never: once its
// lease lapses, the other replica marks the lost turn's card failed, saying
// to send the message again, logs it without the message text, and runs the
// message that waited.
func TestKilledReplicaTurnIsMarkedFailed(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	sa := newFailingStore(testenv.OpenStores(t, prefix))
	a := newReplica(t, sa, shortLease(testConfig(t, "a")))
	var logs logBuffer
	cfgB := testConfig(t, "b")
	cfgB.Logger = logs.logger()
	cfgB.RerunOrphaned = bot.RerunNever
	b := newReplica(t, testenv.OpenStores(t, prefix), cfgB)
	a.run(t)

	first := receive(t, a.e, msg("m1", "alice", "block"))
	waitStarted(t, a.agent, "block")
	running := card{text: "block", status: cards.Running()}.render()
	waitFrame(t, a.e, first.StreamID, "running", func(f webhook.Frame) bool { return f.Content == running })
	b.run(t)
	second := receive(t, b.e, msg("m2", "alice", "second"))
	if second.Content != "⏳ Queued (position 1) — waiting for the running turn to finish." {
		t.Fatalf("queued frame: %q", second.Content)
	}

	sa.kill()
	if got := waitFinished(t, b.e, first.StreamID).Content; got != serverLost {
		t.Fatalf("card of the killed replica's turn:\n%q\nwant\n%q", got, serverLost)
	}
	moved := acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available)."}
	if got, want := waitFinished(t, b.e, second.StreamID).Content, (card{before: []acpbridge.Notice{moved}, text: "second", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("the waiting message, run by b:\n%q\nwant\n%q", got, want)
	}
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"second"}) {
		t.Fatalf("b's prompts %q", p)
	}
	lines := lostLines(logs.String())
	if len(lines) != 1 || !strings.Contains(lines[0], "msgid=m1") || !strings.Contains(lines[0], "turn_replica=a") || strings.Contains(lines[0], "block") {
		t.Fatalf("want one warning naming m1 and replica a, without the message text; got %q", lines)
	}
	// Whatever the killed replica would still do, the card stays.
	a.stop()
	if f, _, err := webhook.FrameOf(b.e.ch, t.Context(), first.StreamID); err != nil || f.Content != serverLost || !f.Finish {
		t.Fatalf("after a stopped: %+v %v", f, err)
	}
}

// A replica that stalls mid-turn (its renewals fail) loses its lease; the
// other replica marks the turn failed (agent.rerun_orphaned: never), and
// when the stalled replica comes back and writes its answer, the write
// loses: the card keeps the failure and nothing of the late answer is
// delivered.
func TestStaleHolderCannotOverwriteTheFailedCard(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	sa := newFailingStore(testenv.OpenStores(t, prefix))
	a := newReplica(t, sa, shortLease(testConfig(t, "a")))
	cfgB := testConfig(t, "b")
	cfgB.RerunOrphaned = bot.RerunNever
	b := newReplica(t, testenv.OpenStores(t, prefix), cfgB)
	a.run(t)
	first := receive(t, a.e, msg("m1", "alice", "gate:late"))
	waitStarted(t, a.agent, "gate:late")
	b.run(t)

	sa.pause()
	if got := waitFinished(t, b.e, first.StreamID).Content; got != serverLost {
		t.Fatalf("card of the stalled turn:\n%q\nwant\n%q", got, serverLost)
	}
	a.agent.release("late")
	select {
	case s := <-sa.refused:
		if s != first.StreamID {
			t.Fatalf("refused a frame of stream %s, want %s", s, first.StreamID)
		}
	case <-time.After(hangGuard):
		t.Fatal("the stalled replica never tried to write its answer")
	}
	a.stop() // waits for a's worker: everything it would write is written
	if f, _, err := webhook.FrameOf(b.e.ch, t.Context(), first.StreamID); err != nil || f.Content != serverLost || !f.Finish {
		t.Fatalf("after the late answer: %+v %v", f, err)
	}
	if d := a.out.all(); len(d) != 0 {
		t.Fatalf("the stalled replica delivered %+v", d)
	}
	if len(sa.refused) != 0 {
		t.Fatalf("the stalled replica tried %d more frames after the first refusal", len(sa.refused))
	}
}

// A replica killed mid-turn (agent.rerun_orphaned: once, the default): the
// replica that takes over runs the lost message once more on its stream,
// the card noting the loss, and only then the message that waited behind it.
func TestKilledReplicaTurnRunsOnceMore(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	sa := newFailingStore(testenv.OpenStores(t, prefix))
	a := newReplica(t, sa, shortLease(testConfig(t, "a")))
	b := newReplica(t, testenv.OpenStores(t, prefix), testConfig(t, "b"))
	a.run(t)
	first := receive(t, a.e, msg("m1", "alice", "gate:g1 work"))
	waitStarted(t, a.agent, "gate:g1 work")
	b.run(t)
	second := receive(t, b.e, msg("m2", "alice", "second"))

	sa.kill()
	waitStarted(t, b.agent, "gate:g1 work")
	b.agent.release("g1")
	lost := acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "the server running this turn stopped before it finished. It runs once more."}
	moved := acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available)."}
	if got, want := waitFinished(t, b.e, first.StreamID).Content, (card{before: []acpbridge.Notice{lost, moved}, text: "gate:g1 work", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("card of the killed replica's turn, run once more:\n%q\nwant\n%q", got, want)
	}
	if got, want := waitFinished(t, b.e, second.StreamID).Content, (card{text: "second", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("the waiting message, run by b after it:\n%q\nwant\n%q", got, want)
	}
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"gate:g1 work", "second"}) {
		t.Fatalf("b's prompts %q, want the lost message first", p)
	}
}

// Turns that end normally release their record: when their replica is killed
// afterwards, the next message is taken over and no earlier card is touched.
func TestFinishedTurnIsNeverMarkedFailed(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	sa := newFailingStore(testenv.OpenStores(t, prefix))
	a := newReplica(t, sa, shortLease(testConfig(t, "a")))
	var logs logBuffer
	cfgB := testConfig(t, "b")
	cfgB.Logger = logs.logger()
	stB := testenv.OpenStores(t, prefix)
	b := newReplica(t, stB, cfgB)
	a.run(t)
	first := receive(t, a.e, msg("m1", "alice", "first"))
	want := (card{text: "first", withAnswer: true, status: done()}).render()
	if got := waitFinished(t, a.e, first.StreamID).Content; got != want {
		t.Fatalf("first:\n%q\nwant\n%q", got, want)
	}
	// a finished its turn; wait until it released the lease too.
	eventually(t, func() string { return "a never released the lease after its turn" }, func() bool {
		_, token, err := stB.Lease(t.Context(), "single:alice")
		if err != nil {
			t.Fatal(err)
		}
		return token == 0
	})
	b.run(t) // only now, so the first message surely ran on a
	sa.kill()
	second := receive(t, b.e, msg("m2", "alice", "second"))
	waitFinished(t, b.e, second.StreamID)
	if p := b.agent.Prompts(); !slices.Equal(p, []string{"second"}) {
		t.Fatalf("b's prompts %q", p)
	}
	if got, _, err := webhook.FrameOf(b.e.ch, t.Context(), first.StreamID); err != nil || got.Content != want {
		t.Fatalf("first after a was killed: %+v %v", got, err)
	}
	if lines := lostLines(logs.String()); len(lines) != 0 || strings.Contains(logs.String(), "had already finished its card") {
		t.Fatalf("a finished turn was found orphaned: %q\n%s", lines, logs.String())
	}
}
