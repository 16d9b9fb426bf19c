package acpbridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrPhaseBacklog is returned by PhaseCache writes while the backing store
// is so far behind that the oldest queued write had to be dropped.
var ErrPhaseBacklog = errors.New("phase store backlog full: dropped the oldest queued write")

// Write-behind pacing: one attempt may take writeTimeout; after a failure the
// writer waits from retryMin, doubling to retryMax, so a Redis that is down
// is retried about every two seconds, not in a busy loop.
const (
	writeTimeout = 2 * time.Second
	retryMin     = 50 * time.Millisecond
	retryMax     = 2 * time.Second
)

// pendingWrite is the newest operation queued for one item: record phase,
// or forget the item.
type pendingWrite struct {
	phase  string
	forget bool
}

// phaseWriter carries a PhaseCache's writes to its backing store on a
// goroutine of its own, oldest first. It keeps only the newest operation
// per item (a forget replaces a set not yet written), at most max items,
// and retries a failed write until the store answers or Close. The
// goroutine runs only while there is something to write.
type phaseWriter struct {
	backing PhaseStore
	max     int

	mu      sync.Mutex
	pending map[phaseKey]pendingWrite
	order   []phaseKey // keys in arrival order; stale keys are skipped
	running bool
	idle    chan struct{} // closed when the queue empties; replaced on enqueue
	stopped bool

	ctx    context.Context // cancelled by close: ends a write or a retry wait
	cancel context.CancelFunc
}

func (w *phaseWriter) init(backing PhaseStore, max int) {
	w.backing, w.max = backing, max
	w.pending = make(map[phaseKey]pendingWrite)
	w.idle = make(chan struct{})
	close(w.idle)
	w.ctx, w.cancel = context.WithCancel(context.Background())
}

func (w *phaseWriter) enqueue(k phaseKey, op pendingWrite) error {
	if w.backing == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return nil
	}
	var err error
	if _, queued := w.pending[k]; !queued {
		if len(w.pending) >= w.max {
			w.dropOldestLocked()
			err = ErrPhaseBacklog
		}
		w.order = append(w.order, k)
	}
	w.pending[k] = op
	if !w.running {
		w.running = true
		w.idle = make(chan struct{})
		go w.run()
	}
	return err
}

func (w *phaseWriter) dropOldestLocked() {
	for len(w.order) > 0 {
		k := w.order[0]
		w.order = w.order[1:]
		if _, ok := w.pending[k]; ok {
			delete(w.pending, k)
			return
		}
	}
}

// next takes the oldest queued write, or reports the queue empty (and the
// writer stopped running).
func (w *phaseWriter) next() (phaseKey, pendingWrite, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.order) > 0 && !w.stopped {
		k := w.order[0]
		w.order = w.order[1:]
		if op, ok := w.pending[k]; ok {
			delete(w.pending, k)
			return k, op, true
		}
	}
	w.running = false
	w.order = nil
	close(w.idle)
	return phaseKey{}, pendingWrite{}, false
}

// requeue puts a failed write back at the front, unless a newer operation
// for the item arrived meanwhile.
func (w *phaseWriter) requeue(k phaseKey, op pendingWrite) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, newer := w.pending[k]; newer {
		return
	}
	w.pending[k] = op
	w.order = append([]phaseKey{k}, w.order...)
}

func (w *phaseWriter) run() {
	wait := retryMin
	for {
		k, op, ok := w.next()
		if !ok {
			return
		}
		if err := w.write(k, op); err == nil {
			wait = retryMin
			continue
		}
		w.requeue(k, op)
		select {
		case <-time.After(wait):
		case <-w.ctx.Done():
		}
		wait = min(2*wait, retryMax)
	}
}

func (w *phaseWriter) write(k phaseKey, op pendingWrite) error {
	ctx, cancel := context.WithTimeout(w.ctx, writeTimeout)
	defer cancel()
	if op.forget {
		return w.backing.ForgetPhase(ctx, k.thread, k.item)
	}
	return w.backing.SetPhase(ctx, k.thread, k.item, op.phase)
}

func (w *phaseWriter) flush(ctx context.Context) error {
	w.mu.Lock()
	idle := w.idle
	w.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flush message phases: %w", ctx.Err())
	}
}

func (w *phaseWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.cancel()
}
