package external

import (
	"context"

	"github.com/wecodex/wecodex/acpbridge/internal/ordered"
)

// orderedQueue runs functions one at a time, in the order they were pushed, on
// a goroutine it owns. It lets a protocol reader hand work (deliver an update
// to a sink) to a consumer that may be slow without ever blocking the reader:
// push never waits (see ordered.Queue).
type orderedQueue struct {
	q    *ordered.Queue[func()]
	done <-chan struct{} // closed once closed and everything queued has run
}

func newOrderedQueue() *orderedQueue {
	q := ordered.New(func(batch []func()) {
		for _, f := range batch {
			f()
		}
	})
	return &orderedQueue{q: q, done: q.Done()}
}

// push queues f and reports false when the queue is closed.
func (q *orderedQueue) push(f func()) bool { return q.q.Push(f) }

// flush waits until everything pushed before it has run.
func (q *orderedQueue) flush(ctx context.Context) error {
	ran := make(chan error, 1)
	return q.q.Flush(ctx, func() { ran <- nil }, ran)
}

// close stops the queue once what is already queued has run. It does not
// wait; <-q.done does.
func (q *orderedQueue) close() { q.q.Close() }
