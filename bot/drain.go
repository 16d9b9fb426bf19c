package bot

import (
	"context"
	"sync"
	"time"
)

// Drain makes this replica stop taking turns at once, as a replica shutting
// down for a rolling deploy: Run takes no new conversation, no worker takes
// the message queued behind the turn it runs, and the heartbeat is dropped
// so the other replicas take this one's conversations, waiting and new
// messages now instead of once it lapses. Running turns go on. Drain returns
// nil once every turn has ended and its lease is released, or ctx's error
// when ctx ends first: the turns still running then end when Run's context
// does, which queues their messages again. Call it while Run runs; a second
// call just waits again.
func (e *Engine) Drain(ctx context.Context) error { return e.sched.drainWait(ctx) }

// drainState is the scheduler's side of Drain: drain is closed by Drain,
// idle once run has handed over and no worker is left.
type drainState struct {
	drain     chan struct{}
	drainOnce sync.Once
	idle      chan struct{}
	idleOnce  sync.Once
}

func (s *scheduler) drainWait(ctx context.Context) error {
	s.drainOnce.Do(func() { close(s.drain) })
	select {
	case <-s.idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *scheduler) draining() bool {
	select {
	case <-s.drain:
		return true
	default:
		return false
	}
}

// handOver is run's half of Drain, on run's goroutine so no heartbeat or
// take races it: from now on this replica takes nothing, and it is no
// longer alive for affinity.
func (s *scheduler) handOver() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.store.Heartbeat(ctx, s.cfg.Replica, 0); err != nil {
		// The heartbeat then lapses on its own within HeartbeatTTL.
		s.log.Warn("drop heartbeat for the drain", "err", err)
	}
	s.mu.Lock()
	s.handedOver = true
	idle := len(s.workers) == 0
	s.mu.Unlock()
	s.log.Info("handed over: taking no new turns; other replicas take this replica's conversations")
	if idle {
		s.idleOnce.Do(func() { close(s.idle) })
	}
}

// workerDone forgets conv's worker, and tells Drain when it was the last.
func (s *scheduler) workerDone(conv string) {
	s.mu.Lock()
	delete(s.workers, conv)
	s.cfg.Observer.QueueDepth(conv, 0) // under mu: queued cannot report after it
	idle := s.handedOver && len(s.workers) == 0
	s.mu.Unlock()
	if idle {
		s.idleOnce.Do(func() { close(s.idle) })
	}
}
