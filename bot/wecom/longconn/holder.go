package longconn

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// LeaseStore is the holder lease in Redis (store.LongConn implements it).
type LeaseStore interface {
	AcquireHolder(ctx context.Context, botID, replica string, ttl time.Duration) (int64, error)
	RenewHolder(ctx context.Context, botID, replica string, token int64, ttl time.Duration) (bool, error)
	ReleaseHolder(ctx context.Context, botID string, token int64) (bool, error)
}

// Holder makes sure at most one replica holds the bot's connection: it runs
// Hold only while this replica holds the lease, and ends it before the lease
// could lapse, so a standby never subscribes while we still are (two
// subscribed connections would kick each other forever).
type Holder struct {
	Store   LeaseStore
	BotID   string
	Replica string
	// TTL of the lease; RenewEvery (≤ TTL/3) is how often it is renewed and,
	// on a standby, tried. Hold ends RenewEvery before the lease could lapse.
	TTL, RenewEvery time.Duration
	// Hold runs the connection with the lease's token until ctx ends. An
	// error means the connection stopped for good (ErrBadCredentials,
	// ErrKicked): the lease is then kept, so no standby reconnects.
	Hold func(ctx context.Context, token int64) error
	Log  *slog.Logger

	mu    sync.Mutex
	token int64
	err   error
}

// State is the token held now (0 on a standby) and why the connection
// stopped for good, if it did.
func (h *Holder) State() (token int64, stopped error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.token, h.err
}

func (h *Holder) set(token int64, err error) {
	h.mu.Lock()
	h.token, h.err = token, err
	h.mu.Unlock()
}

// Run stands by, holds, and stands by again after losing the lease, until
// ctx ends; then it releases a lease it holds.
func (h *Holder) Run(ctx context.Context) error {
	if h.Log == nil {
		h.Log = slog.New(slog.DiscardHandler)
	}
	for ctx.Err() == nil {
		sent := time.Now()
		token, err := h.Store.AcquireHolder(ctx, h.BotID, h.Replica, h.TTL)
		if err != nil && ctx.Err() == nil {
			h.Log.Warn("long connection: cannot reach the holder lease", "err", err)
		}
		if err != nil || token == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(h.RenewEvery):
			}
			continue
		}
		h.Log.Info("long connection: this replica holds the bot's connection", "replica", h.Replica, "token", token)
		h.hold(ctx, token, sent)
	}
	return nil
}

// hold runs Hold under the lease until ctx ends or the lease is lost.
func (h *Holder) hold(ctx context.Context, token int64, lastOK time.Time) {
	h.set(token, nil)
	defer h.set(0, nil)
	hctx, cancel := context.WithCancel(ctx)
	result := make(chan error, 1)
	go func() { result <- h.Hold(hctx, token) }()
	running := true
	stop := func() {
		cancel()
		if running {
			<-result
			running = false
		}
	}
	defer stop()
	for {
		// The lease lapses at lastOK+TTL at the earliest (Redis set it after
		// we sent the request): be gone by RenewEvery before that.
		deadline := lastOK.Add(h.TTL - h.RenewEvery)
		select {
		case <-ctx.Done():
			stop()
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), h.RenewEvery)
			_, _ = h.Store.ReleaseHolder(rctx, h.BotID, token)
			rcancel()
			return
		case err := <-result:
			running = false
			if err != nil && !errors.Is(err, context.Canceled) {
				// Stopped for good: keep the lease so no standby reconnects.
				h.set(token, err)
			}
		case <-time.After(h.RenewEvery):
		}
		sent := time.Now()
		rctx, rcancel := context.WithDeadline(ctx, deadline)
		held, err := h.Store.RenewHolder(rctx, h.BotID, h.Replica, token, h.TTL)
		rcancel()
		switch {
		case err == nil && held:
			lastOK = sent
		case err == nil:
			h.Log.Warn("long connection: another replica took the holder lease; standing by", "token", token)
			return
		case time.Now().After(deadline):
			h.Log.Warn("long connection: could not renew the holder lease in time; closing the connection", "err", err)
			return
		}
	}
}
