// Package ordered is the unbounded in-order queue both ACP sides use to hand
// work off a protocol reader without ever blocking it: the ACP client
// (acpbridge/external) delivers updates to sinks through it, the ACP server
// (acpbridge/serve) writes a session's notifications through it.
package ordered

import (
	"context"
	"sync"
)

// Queue hands the items pushed to it, in order, to one handler on a
// goroutine it owns: each wake-up hands over everything that gathered as one
// batch. Push never waits. It is unbounded on purpose: a reader cannot drop
// an update, and a turn's updates are finite.
type Queue[T any] struct {
	handle func(batch []T)

	mu     sync.Mutex
	items  []T
	closed bool
	wake   chan struct{}
	done   chan struct{}
}

// New starts a queue that hands each batch to handle. handle must not keep
// the batch: the queue reuses it.
func New[T any](handle func(batch []T)) *Queue[T] {
	q := &Queue[T]{handle: handle, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go q.run()
	return q
}

// Push queues v and reports false when the queue is closed.
func (q *Queue[T]) Push(v T) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.poke()
	return true
}

// Flush pushes barrier, an item whose handling sends the outcome of
// everything before it on reached, and returns that outcome, or ctx's error
// if ctx ends first. On a closed queue it waits until what was queued before
// closing has been handled and returns nil: the handler reported its
// outcome to the flushes pushed before the close.
func (q *Queue[T]) Flush(ctx context.Context, barrier T, reached <-chan error) error {
	if !q.Push(barrier) {
		select {
		case <-q.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case err := <-reached:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the queue once what is already queued has been handled. It
// does not wait; <-Done() does.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.poke()
}

// Done is closed once the queue is closed and everything queued before has
// been handled.
func (q *Queue[T]) Done() <-chan struct{} { return q.done }

func (q *Queue[T]) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *Queue[T]) run() {
	defer close(q.done)
	var batch []T
	for range q.wake {
		q.mu.Lock()
		batch, q.items = q.items, batch[:0]
		closed := q.closed
		q.mu.Unlock()
		if len(batch) > 0 {
			q.handle(batch)
		}
		clear(batch) // drop the items' memory
		// closed was read together with the swap, and nothing is queued
		// once closed, so nothing is left behind.
		if closed {
			return
		}
	}
}
