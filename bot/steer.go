package bot

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// A steer travels as /stop does: intake keeps it in the store, beside the
// conversation's lease, and announces it; the replica whose worker holds
// the lease takes it and adds it to the turn it runs. A steer that finds
// no turn to add to (the turn ended, or has not started in the agent yet)
// is queued as a message of its own, whose reply then shows its turn.

// steerTarget is the running prompt turn a steer is added to.
type steerTarget struct {
	session acp.SessionId
	sink    acpbridge.Sink
}

// steering is a worker's part in steering: the turn steers go to, and one
// delivery at a time so steers reach the turn in the order they came.
type steering struct {
	deliver sync.Mutex
	mu      sync.Mutex
	target  *steerTarget
}

func (s *steering) setTarget(t *steerTarget) {
	s.mu.Lock()
	s.target = t
	s.mu.Unlock()
}

func (s *steering) current() *steerTarget {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target
}

// watchSteers brings announced steers to this replica's workers until ctx
// ends; the returned channel is closed when it has stopped.
func (s *scheduler) watchSteers(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if s.steers == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			err := s.steers.WatchSteers(ctx, func() {}, func(conv string) { s.checkSteer(ctx, conv) })
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("watch steers; retrying", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return done
}

// checkSteer delivers conv's waiting steers when this replica runs conv.
func (s *scheduler) checkSteer(ctx context.Context, conv string) {
	s.mu.Lock()
	w := s.workers[conv]
	if w != nil {
		s.wg.Add(1)
	}
	s.mu.Unlock()
	if w == nil {
		return
	}
	go func() {
		defer s.wg.Done()
		s.deliverSteers(ctx, w)
	}()
}

// deliverSteers adds each steer waiting for w's conversation to its
// running turn, or queues it as a message when there is none.
func (s *scheduler) deliverSteers(ctx context.Context, w *worker) {
	if s.steers == nil {
		return
	}
	w.steering.deliver.Lock()
	defer w.steering.deliver.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.LeaseTTL)
	defer cancel()
	items, err := s.steers.TakeSteers(ctx, w.conv)
	if err != nil {
		s.log.Warn("take steers", "conv", w.conv, "err", err)
		return
	}
	for _, item := range items {
		s.deliverSteer(ctx, w, item)
	}
}

func (s *scheduler) deliverSteer(ctx context.Context, w *worker, item []byte) {
	var q queued
	if err := json.Unmarshal(item, &q); err != nil {
		s.log.Error("drop undecodable steer", "conv", w.conv, "err", err)
		return
	}
	log := s.log.With("conv", w.conv, "msgid", q.MsgID, "stream", q.StreamID)
	t := w.steering.current()
	steerer, can := s.runner.agent.(Steerer)
	if t != nil && can {
		err := steerer.Steer(ctx, t.session, q.Text)
		if err == nil {
			t.sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: textSteerNotice + q.Text})
			log.Info("steered the running turn")
			s.showFinished(ctx, log, q, textSteered)
			return
		}
		log.Info("could not steer the running turn; queued as a message", "err", err)
	}
	s.queueSteer(ctx, log, w.conv, q, item)
}

// queueSteer queues a steer no turn took as a message of its own.
func (s *scheduler) queueSteer(ctx context.Context, log *slog.Logger, conv string, q queued, item []byte) {
	pos, _, err := s.store.Enqueue(ctx, conv, item, s.cfg.MaxQueue)
	switch {
	case err != nil:
		log.Warn("queue a steer no turn took", "err", err)
		s.showFinished(ctx, log, q, textSteerLost)
	case pos == 0:
		s.showFinished(ctx, log, q, textSteerLost)
	default:
		s.wake(conv)
	}
}

const (
	textSteerNotice = "➕ "
	textSteerLost   = "This message could not be added to the running turn nor queued: send it again."
)
