package webhook_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
)

const windowNote = "_(this reply is taking long: the rest of the answer follows in a separate message)_"

// recordingStore is the real store, with every turn frame it stored kept in
// order (content only), so a test can wait for a frame and assert on all of
// them.
type recordingStore struct {
	fullStore
	mu      sync.Mutex
	saved   []string
	changed chan struct{} // closed and replaced on every stored frame
}

func newRecordingStore(t *testing.T) *recordingStore {
	return &recordingStore{fullStore: testenv.OpenStores(t, testenv.Prefix(t, "bot")), changed: make(chan struct{})}
}

func (s *recordingStore) SaveFrameUnless(ctx context.Context, id, keep, state, owner, user, content string) (bool, error) {
	ok, err := s.fullStore.SaveFrameUnless(ctx, id, keep, state, owner, user, content)
	if ok && err == nil {
		s.mu.Lock()
		s.saved = append(s.saved, content)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}
	return ok, err
}

func (s *recordingStore) frames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.saved...)
}

// waitFor waits until the stored turn frames satisfy ok.
func (s *recordingStore) waitFor(t *testing.T, what string, ok func(frames []string) bool) {
	t.Helper()
	guard := time.NewTimer(time.Minute) // a hung engine fails; not a speed limit
	defer guard.Stop()
	for {
		s.mu.Lock()
		saved, changed := append([]string(nil), s.saved...), s.changed
		s.mu.Unlock()
		if ok(saved) {
			return
		}
		select {
		case <-changed:
		case <-guard.C:
			t.Fatalf("turn frames never %s; stored: %q", what, saved)
		}
	}
}

func lastHas(sub string) func([]string) bool {
	return func(fs []string) bool { return len(fs) > 0 && strings.Contains(fs[len(fs)-1], sub) }
}

// firstWindow ends the stream window of the first turn when the test sends on
// the returned channel; later turns' windows never end.
func firstWindow(e *engine) chan<- time.Time {
	win := make(chan time.Time)
	var once sync.Once
	webhook.SetWindowHook(e.ch, func(string) <-chan time.Time {
		var c <-chan time.Time
		once.Do(func() { c = win })
		return c
	})
	return win
}

// settle waits until every turn before it has finished, deliveries included:
// a conversation runs its turns one after the other.
func settle(t *testing.T, r *replica, user string) {
	t.Helper()
	waitFinished(t, r.e, receive(t, r.e, msg("settle", user, "settle")).StreamID)
}

// The window ends just after the agent's turn did, before the engine put
// the final status on the card: the stream must end with the whole answer
// and no "the rest follows" note, and nothing follows it.
func TestWindowEndingAsTheTurnEndsShowsTheAnswerOnce(t *testing.T) {
	st := newRecordingStore(t)
	r := newReplica(t, st, testConfig(t, "a"))
	win := firstWindow(r.e)
	text := "hello"
	var once sync.Once
	webhook.SetTurnEndedHook(r.e.ch, func(string) {
		once.Do(func() {
			// The agent answered and returned; the answer is on the stream.
			st.waitFor(t, "showed the answer", lastHas(answer(text)))
			n := len(st.frames())
			win <- time.Now()
			// The window's end asks for a frame at once: wait until the
			// publisher rendered it, so it saw the window closed.
			st.waitFor(t, "showed a frame after the window ended", func(fs []string) bool { return len(fs) > n })
		})
	})
	r.run(t)
	id := receive(t, r.e, msg("m1", "alice", text)).StreamID
	final := waitFinished(t, r.e, id)
	settle(t, r, "alice")
	if want := (card{text: text, withAnswer: true, status: done()}).render(); final.Content != want {
		t.Fatalf("stream ended with:\n%q\nwant\n%q", final.Content, want)
	}
	for i, f := range st.frames() {
		if strings.Contains(f, windowNote) {
			t.Fatalf("frame %d has the window note although the turn had ended: %q", i, f)
		}
	}
	if ds := r.out.all(); len(ds) != 0 {
		t.Fatalf("delivered %d continuation(s) after a stream that showed everything: %+v", len(ds), ds)
	}
}

// The window ends while the answer is half written: the stream keeps the
// first half and the note, the continuation the second half, so every byte
// shows exactly once.
func TestWindowEndingMidAnswerSplitsItExactlyOnce(t *testing.T) {
	st := newRecordingStore(t)
	r := newReplica(t, st, testConfig(t, "a"))
	win := firstWindow(r.e)
	r.run(t)
	text := "half:h"
	a := answer(text)
	id := receive(t, r.e, msg("m1", "alice", text)).StreamID
	st.waitFor(t, "showed the first half", lastHas(a[:len(a)/2]))
	win <- time.Now()
	final := waitFinished(t, r.e, id)
	// The half shown ends inside a word: the stream ends before that word
	// (taking back its shown part), never inside it.
	kept := a[:strings.LastIndex(a[:len(a)/2], " ")+1]
	if want := runningFrame(text, kept) + "\n\n" + windowNote; final.Content != want {
		t.Fatalf("stream ended with:\n%q\nwant\n%q", final.Content, want)
	}
	r.agent.release("h")
	ds := waitDeliveries(t, r.out)
	checkDeliveries(t, ds, "alice", id, "https://reply/m1")
	if len(ds) != 1 || kept+ds[0].Body != a || ds[0].More {
		t.Fatalf("deliveries %+v, want one with the rest %q", ds, a[len(kept):])
	}
}

// runningFrame is the frame of a running turn whose agent thought about
// text and has answered body so far.
func runningFrame(text, body string) string {
	k := cards.New(cards.WithStreamLimit(wecom.MaxStreamContentBytes - 256))
	for _, u := range thoughtOf(text) {
		k.Apply(u)
	}
	k.Apply(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m1", body))
	return k.Stream(0, 0).Content
}

// failingDeliverer refuses every continuation, as a response_url that
// expired or a network failure would.
type failingDeliverer struct {
	mu    sync.Mutex
	tried []webhook.Delivery
}

func (f *failingDeliverer) Deliver(_ context.Context, d webhook.Delivery) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tried = append(f.tried, d)
	return errors.New("response_url answered 500")
}

func (f *failingDeliverer) all() []webhook.Delivery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]webhook.Delivery(nil), f.tried...)
}

// A continuation that could not be delivered is not lost: /more shows it.
func TestFailedContinuationIsKeptForMore(t *testing.T) {
	st := newRecordingStore(t)
	cfg := testConfig(t, "a")
	agent := newFakeAgent("a")
	out := &failingDeliverer{}
	e, err := newEngine(cfg, st, agent, out)
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{e: e, agent: agent, out: &deliveries{}, stop: func() {}}
	win := firstWindow(e)
	r.run(t)
	text := "gate:f"
	id := receive(t, e, msg("m1", "alice", text)).StreamID
	st.waitFor(t, "showed the thought", lastHas("working on: "+text))
	win <- time.Now()
	waitFinished(t, e, id)
	agent.release("f")
	settle(t, r, "alice")
	if ds := out.all(); len(ds) != 1 || ds[0].Body != answer(text) {
		t.Fatalf("tried deliveries %+v, want one with the whole answer", ds)
	}
	more := receive(t, e, msg("m2", "alice", "/more"))
	if want := "_Continuing the answer to “" + text + "”:_\n\n" + answer(text); more.Content != want || !more.Finish {
		t.Fatalf("/more after a failed delivery = %+v, want %q", more, want)
	}
}

// A frame the window finishes early carries the note and still fits WeCom's
// cap, however full the frame already was.
func TestWindowNoteFitsTheFrameCap(t *testing.T) {
	st := newRecordingStore(t)
	r := newReplica(t, st, testConfig(t, "a"))
	win := firstWindow(r.e)
	r.run(t)
	// The thought repeats the prompt: far more progress than a frame holds,
	// so the frame is filled to its limit.
	text := "gate:n " + strings.Repeat("progress that fills the frame ", 1500)
	id := receive(t, r.e, msg("m1", "alice", text)).StreamID
	st.waitFor(t, "showed the thought", lastHas("progress that fills the frame"))
	full := st.frames()
	if n := len(full[len(full)-1]); n < wecom.MaxStreamContentBytes-512 {
		t.Fatalf("the thought filled only %d bytes of the frame; the test needs a full one", n)
	}
	win <- time.Now()
	final := waitFinished(t, r.e, id)
	if !strings.HasSuffix(final.Content, windowNote) || len(final.Content) > wecom.MaxStreamContentBytes {
		t.Fatalf("window-closed frame: %d bytes (cap %d), ends %q", len(final.Content), wecom.MaxStreamContentBytes, final.Content[max(0, len(final.Content)-100):])
	}
	r.agent.release("n")
}
