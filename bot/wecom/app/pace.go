package app

import (
	"context"
	"log/slog"
	"time"
)

// WeCom's message/send budget per member per app (DOC 90236): the excess is
// dropped without an error, so the channel reserves every send ahead.
const (
	SendsPerMinute = 30
	SendsPerHour   = 1000
	// paceMargin widens each window for the difference between WeCom's
	// clock and the replicas'.
	paceMargin = 2 * time.Second
)

// Pacer reserves send times shared by every replica; *store.App
// implements it.
type Pacer interface {
	ReserveSend(ctx context.Context, agentID, user string, now time.Time, perMinute, perHour int, margin time.Duration) (time.Time, error)
}

// Clock is the time the pacer reads and waits on; tests inject one that
// moves only when waited on.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends.
	Sleep(ctx context.Context, d time.Duration) error
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pacer queues each send to a user until the shared budget has room for it:
// every message waits its turn, none is dropped.
type pacer struct {
	store   Pacer
	clock   Clock
	agentID string
	log     *slog.Logger
}

// wait returns once a send to user may go out.
func (p *pacer) wait(ctx context.Context, user string) error {
	now := p.clock.Now()
	at, err := p.store.ReserveSend(ctx, p.agentID, user, now, SendsPerMinute, SendsPerHour, paceMargin)
	if err != nil {
		// Without the shared budget, one send per 1/30 minute keeps this
		// replica alone within it; the message still goes out.
		p.log.Warn("send budget unavailable; pacing this replica on its own", "user", user, "err", err)
		return p.clock.Sleep(ctx, time.Minute/SendsPerMinute)
	}
	if d := at.Sub(now); d > 0 {
		return p.clock.Sleep(ctx, d)
	}
	return nil
}
