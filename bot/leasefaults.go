package bot

import (
	"context"
	"log/slog"
)

// Redis faults are normal (a restart, a failover, a stall): what a worker
// does when its lease vanished or a store call failed at a turn's end.

func (w *worker) setItem(item []byte) {
	w.mu.Lock()
	w.item = item
	w.mu.Unlock()
}

func (w *worker) runningItem() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.item
}

// retake re-takes a lease that RenewLease found gone: Redis lost it
// (restarted empty, failed over) or it lapsed unclaimed. It fails, and the
// turn must stop, when another replica took the lease meanwhile.
func (s *scheduler) retake(ctx context.Context, w *worker) bool {
	held, err := s.store.RetakeLease(ctx, w.conv, s.cfg.Replica, w.token, w.runningItem(), s.cfg.LeaseTTL)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("re-take lease", "conv", w.conv, "err", err)
		}
		return false
	}
	if held {
		s.log.Info("lease re-taken", "conv", w.conv, "token", w.token)
	}
	return held
}

// nextTurn takes the next waiting message (or releases the lease when none
// waits), retrying while Redis fails, so a turn that ended during an outage
// does not leave its lease to lapse. A lease found gone is re-taken first
// when no one else holds it.
func (s *scheduler) nextTurn(ctx context.Context, log *slog.Logger, w *worker) (next []byte, held bool, err error) {
	take := func(ctx context.Context) error {
		next, held, err = s.store.NextTurn(ctx, w.conv, w.token, s.cfg.LeaseTTL)
		return err
	}
	warn := func(attempt int, err error) { log.Warn("take next message; retrying", "attempt", attempt, "err", err) }
	if err := RetryStore(ctx, take, warn); err != nil {
		return nil, false, err
	}
	if held || !s.retake(ctx, w) {
		return next, held, nil
	}
	if err := RetryStore(ctx, take, warn); err != nil {
		return nil, false, err
	}
	return next, held, nil
}

// release hands the lease back when the worker stops early (drain, shutdown, store
// error), retrying while Redis fails, so whoever comes next need not wait
// for it to lapse. Past the lease's TTL there is nothing left to release.
func (s *scheduler) release(ctx context.Context, log *slog.Logger, w *worker) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.LeaseTTL)
	defer cancel()
	err := RetryStore(rctx, func(ctx context.Context) error {
		_, err := s.store.ReleaseLease(ctx, w.conv, w.token)
		return err
	}, func(attempt int, err error) { log.Warn("release lease; retrying", "attempt", attempt, "err", err) })
	if err != nil {
		log.Warn("release lease", "err", err)
	}
}
