package bot

import (
	"context"
	"time"
)

// How RetryStore retries: quickly at first (a failover settles in well under
// a second), then every couple of seconds, for about a minute in all: past a
// Redis restart or failover, short of leaving a user's card unfinished for
// long.
const (
	StoreRetryBudget    = time.Minute
	retryFirstWait      = 100 * time.Millisecond
	retryMaxWait        = 2 * time.Second
	retryAttemptTimeout = 2 * time.Second
)

// RetryStore runs op, each attempt with its own short deadline, until it
// succeeds, ctx ends or StoreRetryBudget is spent, waiting longer after each
// failure; failed (if set) hears of each failed attempt. It returns op's
// last error. It is for the writes a Redis fault must not drop: a turn's
// final frame, the release of its lease.
func RetryStore(ctx context.Context, op func(context.Context) error, failed func(attempt int, err error)) error {
	deadline := time.Now().Add(StoreRetryBudget)
	wait := retryFirstWait
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, retryAttemptTimeout)
		err := op(actx)
		cancel()
		if err == nil {
			return nil
		}
		if failed != nil {
			failed(attempt, err)
		}
		if ctx.Err() != nil || time.Until(deadline) < wait {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, retryMaxWait)
	}
}
