package bot

import (
	"context"
	"sync"
)

// turnSlots bounds the turns that run at once on this replica
// (agent.max_concurrent_turns): one agent process serves every
// conversation, and forty turns at once on two cores would make each of
// them slow and the machine unresponsive. A turn beyond the limit waits in
// line, first come first served, and is told its place each time it moves.
type turnSlots struct {
	mu      sync.Mutex
	free    int // slots not taken; unused when unlimited
	limited bool
	line    []*slotWaiter // first in line first
}

type slotWaiter struct {
	granted chan struct{} // closed when the slot is this waiter's
	moved   chan struct{} // a place in line changed (buffered, 1)
}

// newTurnSlots allows limit turns at once; limit ≤ 0 means no limit.
func newTurnSlots(limit int) *turnSlots {
	return &turnSlots{free: limit, limited: limit > 0}
}

// acquire waits for a slot and returns the function that gives it back.
// While it waits, place is called with its position in line (1: next),
// first when it starts waiting and again each time the line moves; a turn
// that gets its slot at once is never told a place. It fails only when ctx
// ends first.
func (s *turnSlots) acquire(ctx context.Context, place func(position int)) (release func(), err error) {
	s.mu.Lock()
	if !s.limited {
		s.mu.Unlock()
		return func() {}, nil
	}
	if s.free > 0 && len(s.line) == 0 {
		s.free--
		s.mu.Unlock()
		return s.releaser(), nil
	}
	w := &slotWaiter{granted: make(chan struct{}), moved: make(chan struct{}, 1)}
	s.line = append(s.line, w)
	pos := len(s.line)
	s.mu.Unlock()
	place(pos)
	for {
		select {
		case <-w.granted:
			return s.releaser(), nil
		case <-w.moved:
			if p := s.position(w); p > 0 {
				place(p)
			}
		case <-ctx.Done():
			s.mu.Lock()
			if i := s.index(w); i >= 0 {
				s.line = append(s.line[:i], s.line[i+1:]...)
				s.notifyMovedLocked(i)
				s.mu.Unlock()
				return nil, context.Cause(ctx)
			}
			s.mu.Unlock()
			// Granted as ctx ended: the slot goes on to the next in line.
			<-w.granted
			s.releaser()()
			return nil, context.Cause(ctx)
		}
	}
}

// releaser gives one slot back, once: to the first in line, else to the
// pool.
func (s *turnSlots) releaser() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.line) == 0 {
				s.free++
				return
			}
			next := s.line[0]
			s.line = s.line[1:]
			close(next.granted)
			s.notifyMovedLocked(0)
		})
	}
}

// notifyMovedLocked tells every waiter from index from on that its place
// changed.
func (s *turnSlots) notifyMovedLocked(from int) {
	for _, w := range s.line[from:] {
		select {
		case w.moved <- struct{}{}:
		default:
		}
	}
}

func (s *turnSlots) index(w *slotWaiter) int {
	for i, x := range s.line {
		if x == w {
			return i
		}
	}
	return -1
}

// position is w's place in line (1: next), 0 when it is no longer waiting.
func (s *turnSlots) position(w *slotWaiter) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.index(w) + 1
}
