package external

import (
	"context"
	"sync"
)

// orderedQueue runs functions one at a time, in the order they were pushed, on
// a goroutine it owns. It lets a protocol reader hand work (deliver an update
// to a sink, write a notification) to a consumer that may be slow without ever
// blocking the reader: push never waits. It is unbounded on purpose: the
// reader cannot drop an update, and a turn's updates are finite.
type orderedQueue struct {
	mu     sync.Mutex
	items  []func()
	closed bool
	wake   chan struct{}
	done   chan struct{}
}

func newOrderedQueue() *orderedQueue {
	q := &orderedQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.run()
	return q
}

// push queues f and reports false when the queue is closed.
func (q *orderedQueue) push(f func()) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// flush waits until everything pushed before it has run.
func (q *orderedQueue) flush(ctx context.Context) error {
	ran := make(chan struct{})
	if !q.push(func() { close(ran) }) {
		// Closed: run drains what was queued before closing, then exits.
		select {
		case <-q.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case <-ran:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close stops the queue once what is already queued has run. It does not wait;
// <-q.done does.
func (q *orderedQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *orderedQueue) run() {
	defer close(q.done)
	var batch []func()
	for range q.wake {
		q.mu.Lock()
		batch, q.items = q.items, batch[:0]
		closed := q.closed
		q.mu.Unlock()
		for i, f := range batch {
			f()
			batch[i] = nil
		}
		// closed was read together with the swap, and nothing is pushed
		// once closed, so nothing is left behind.
		if closed {
			return
		}
	}
}
