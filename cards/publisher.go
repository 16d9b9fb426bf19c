package cards

import (
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// DefaultUpdateInterval is the default of cards.update_interval: the least
// time between two frames of a card, so platform rate limits are never hit.
const DefaultUpdateInterval = 500 * time.Millisecond

// clock is the time source of a Publisher: the wall clock, or a test's
// fake one (publisher_test.go sets it), so coalescing is tested without
// waiting on real time.
type clock interface {
	Now() time.Time
	// After delivers once d has passed, like time.After.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// PublisherOption configures a Publisher.
type PublisherOption func(*publisherConfig)

type publisherConfig struct {
	interval time.Duration
	clock    clock
}

// WithInterval sets the least time between frames (DefaultUpdateInterval).
func WithInterval(d time.Duration) PublisherOption {
	return func(c *publisherConfig) {
		if d > 0 {
			c.interval = d
		}
	}
}

// Publisher owns a Card for one turn. Callers change the card through it
// (from any goroutine, never blocking on rendering or sending), and it emits
// frames on its own goroutine: the first change at once, then at most one
// frame per interval with every change since coalesced, a frame at once when
// the status changes or Refresh is called, and a last one when it closes.
//
// render runs with the card locked and must only read it; emit runs with the
// card unlocked and may take its time (a slow emit only coalesces more).
type Publisher[F any] struct {
	cfg    publisherConfig
	render func(*Card) F
	emit   func(f F, final bool)

	mu     sync.Mutex
	card   *Card
	urgent bool
	closed bool

	kick chan struct{} // capacity 1: a pending "something changed"
	stop chan struct{}
	done chan struct{}
}

// NewPublisher starts a publisher for card. Close must be called to flush the
// last frame and stop its goroutine.
func NewPublisher[F any](card *Card, render func(*Card) F, emit func(f F, final bool), opts ...PublisherOption) *Publisher[F] {
	p := &Publisher[F]{
		cfg:    publisherConfig{interval: DefaultUpdateInterval, clock: realClock{}},
		render: render,
		emit:   emit,
		card:   card,
		kick:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	for _, o := range opts {
		o(&p.cfg)
	}
	go p.run()
	return p
}

// Apply folds an ACP session update into the card.
func (p *Publisher[F]) Apply(u acp.SessionUpdate) {
	p.change(func(c *Card) bool { c.Apply(u); return false })
}

// Notice adds a notice to the card's progress section.
func (p *Publisher[F]) Notice(level, text string) {
	p.change(func(c *Card) bool { c.Notice(level, text); return false })
}

// SetStatus changes the card's status; a new state is published at once.
func (p *Publisher[F]) SetStatus(s Status) {
	p.change(func(c *Card) bool {
		if c.status == s {
			return false
		}
		c.SetStatus(s)
		return true
	})
}

// Refresh asks for a frame now, whatever the interval: after a stream had to
// finish (StreamFrame.MustFinish) the continuation should not wait.
func (p *Publisher[F]) Refresh() { p.change(func(*Card) bool { return true }) }

// Do runs f with the card locked, for reads or changes the methods above do
// not cover; f must not block.
func (p *Publisher[F]) Do(f func(*Card)) { p.change(func(c *Card) bool { f(c); return false }) }

// change runs f on the locked card; f reports whether the change must be
// published at once.
func (p *Publisher[F]) change(f func(*Card) bool) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if f(p.card) {
		p.urgent = true
	}
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default: // a frame is already pending; it will include this change
	}
}

// Close stops taking changes, emits the final frame and waits for the
// publisher's goroutine to end. It is safe to call more than once. Once it
// returns the card no longer changes, and the caller may read and render it
// freely (for instance the follow-up messages of an answer that outgrew its
// last stream).
func (p *Publisher[F]) Close() {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	p.mu.Unlock()
	if !already {
		close(p.stop)
	}
	<-p.done
}

func (p *Publisher[F]) frame() F {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.urgent = false
	return p.render(p.card)
}

func (p *Publisher[F]) run() {
	defer close(p.done)
	var (
		last    time.Time
		emitted bool
		pending bool
		timer   <-chan time.Time
	)
	for {
		select {
		case <-p.stop:
			p.emit(p.frame(), true)
			return
		case <-p.kick:
			pending = true
		case <-timer:
			timer = nil
		}
		if !pending {
			continue
		}
		p.mu.Lock()
		urgent := p.urgent
		p.mu.Unlock()
		now := p.cfg.clock.Now()
		if urgent || !emitted || now.Sub(last) >= p.cfg.interval {
			f := p.frame()
			pending, timer = false, nil
			p.emit(f, false)
			last, emitted = p.cfg.clock.Now(), true
			continue
		}
		if timer == nil {
			timer = p.cfg.clock.After(p.cfg.interval - now.Sub(last))
		}
	}
}
