package cards

import (
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// fakeClock moves only when the test says so.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
	armed   chan time.Duration // every After call, for the test to wait on
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(1_700_000_000, 0), armed: make(chan time.Duration, 16)}
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	ch := make(chan time.Time, 1)
	f.waiters = append(f.waiters, fakeWaiter{at: f.now.Add(d), ch: ch})
	f.mu.Unlock()
	f.armed <- d
	return ch
}

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if !w.at.After(f.now) {
			w.ch <- f.now
			continue
		}
		kept = append(kept, w)
	}
	f.waiters = kept
}

// withClock replaces the publisher's wall clock.
func withClock(c clock) PublisherOption { return func(p *publisherConfig) { p.clock = c } }

type emitted struct {
	body  string
	state State
	final bool
}

func startPublisher(t *testing.T, clock clock) (*Publisher[emitted], chan emitted) {
	t.Helper()
	frames := make(chan emitted, 100)
	p := NewPublisher(New(),
		func(c *Card) emitted { return emitted{body: c.Body(), state: c.Status().State} },
		func(f emitted, final bool) { f.final = final; frames <- f },
		withClock(clock), WithInterval(500*time.Millisecond))
	return p, frames
}

func expectFrame(t *testing.T, frames chan emitted, want emitted) {
	t.Helper()
	got := <-frames
	if got != want {
		t.Fatalf("frame = %+v, want %+v", got, want)
	}
}

func expectNoFrame(t *testing.T, frames chan emitted) {
	t.Helper()
	select {
	case f := <-frames:
		t.Fatalf("unexpected frame %+v", f)
	default:
	}
}

func TestPublisherCoalescesWithinInterval(t *testing.T) {
	clock := newFakeClock()
	p, frames := startPublisher(t, clock)

	// The first change goes out at once: progress shows without delay.
	p.Apply(msg("m", "a"))
	expectFrame(t, frames, emitted{body: "a"})

	// Changes within the interval wait for its end and go out as one frame.
	p.Apply(msg("m", "b"))
	p.Apply(msg("m", "c"))
	p.Apply(msg("m", "d"))
	if d := <-clock.armed; d != 500*time.Millisecond {
		t.Fatalf("timer armed for %v, want 500ms", d)
	}
	expectNoFrame(t, frames)
	clock.Advance(499 * time.Millisecond)
	expectNoFrame(t, frames)
	clock.Advance(time.Millisecond)
	expectFrame(t, frames, emitted{body: "abcd"})

	// A status change goes out at once, whatever the interval.
	p.SetStatus(WaitingApproval("Run rm"))
	expectFrame(t, frames, emitted{body: "abcd", state: StateWaitingApproval})
	p.SetStatus(Finished(acp.StopReasonEndTurn, nil))
	expectFrame(t, frames, emitted{body: "abcd", state: StateDone})

	// Close sends the last frame once, marked final, and stops the goroutine.
	p.Close()
	expectFrame(t, frames, emitted{body: "abcd", state: StateDone, final: true})
	p.Close()
	p.Apply(msg("m", "late"))
	expectNoFrame(t, frames)
}

func TestPublisherRefreshAndSameStatus(t *testing.T) {
	clock := newFakeClock()
	p, frames := startPublisher(t, clock)
	p.Apply(msg("m", "a"))
	expectFrame(t, frames, emitted{body: "a"})

	// Setting the status it already has is not a change worth a frame now.
	p.SetStatus(Running())
	<-clock.armed
	expectNoFrame(t, frames)

	// Refresh publishes at once (after a roll-over the next stream should
	// not wait for the interval).
	p.Refresh()
	expectFrame(t, frames, emitted{body: "a"})
	p.Close()
	expectFrame(t, frames, emitted{body: "a", final: true})
}

// TestPublisherNeverBlocksApply holds emit (a slow network send) while the
// agent keeps producing: Apply must return every time, and the frames that
// follow carry everything.
func TestPublisherNeverBlocksApply(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var bodies []string
	p := NewPublisher(New(),
		func(c *Card) string { return c.Body() },
		func(body string, final bool) {
			if !final {
				<-release
			}
			mu.Lock()
			bodies = append(bodies, body)
			mu.Unlock()
		},
		withClock(newFakeClock()))
	for range 1000 {
		p.Apply(msg("m", "x"))
	}
	close(release)
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	if last := bodies[len(bodies)-1]; last != strings.Repeat("x", 1000) {
		t.Fatalf("final frame has %d bytes of body, want 1000", len(last))
	}
	if len(bodies) > 3 {
		// The first frame, at most one coalesced frame while emit was held,
		// and the final one.
		t.Fatalf("%d frames for 1000 updates while emit was blocked, want at most 3", len(bodies))
	}
}
