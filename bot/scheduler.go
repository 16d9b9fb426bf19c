package bot

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Why a turn's context was cancelled, read back with context.Cause.
var (
	errStopped   = errors.New("stopped with /stop")
	errTimeout   = errors.New("turn timed out")
	errLeaseLost = errors.New("lost the conversation lease")
	errDraining  = errors.New("the replica is draining")
)

// scheduler keeps one turn at a time per conversation across every replica:
// it takes a conversation's lease and queue when this replica may (affinity:
// the agent's thread lives with the replica that ran it), runs the queued
// messages in order through the turn runner, keeps the lease and the
// replica's heartbeat alive, and fans /stop out to the running turn.
type scheduler struct {
	cfg      Config
	store    SchedulerStore
	runner   *turnRunner
	channels *channels
	log      *slog.Logger
	wakeups  chan string
	// slots bound the turns running at once on this replica.
	slots *turnSlots
	// steers brings /steer to the turns this replica runs (steer.go); nil
	// when the store cannot.
	steers SteerStore
	// push queues a pushed turn (intake.push), to run again an orphaned
	// turn that asked for it.
	push func(ctx context.Context, p Pushed, rerun bool) (Receipt, error)

	drainState

	mu         sync.Mutex
	runCtx     context.Context    // set while run runs
	handedOver bool               // run stopped taking turns for Drain
	wg         sync.WaitGroup     // workers started by run
	workers    map[string]*worker // conversation → worker on this replica
}

func newScheduler(cfg Config, st SchedulerStore, r *turnRunner, cs *channels, log *slog.Logger) *scheduler {
	return &scheduler{cfg: cfg, store: st, runner: r, channels: cs, log: log,
		wakeups: make(chan string, 256), workers: make(map[string]*worker), slots: newTurnSlots(cfg.MaxConcurrentTurns),
		drainState: drainState{drain: make(chan struct{}), idle: make(chan struct{})}}
}

// worker runs the turns of one conversation on this replica while it holds
// the conversation's lease: the taken message, then each message that waited
// behind it, in order.
type worker struct {
	conv  string
	token int64
	// poke asks the renewer to check the lease now, for a /stop.
	poke chan struct{}

	// steering brings steers to the running turn (steer.go).
	steering steering

	mu     sync.Mutex
	cancel context.CancelCauseFunc // cancels the running turn
	item   []byte                  // the queue item of the running turn, to re-take the lease with
}

// stopTurn cancels the running turn, if any, with cause.
func (w *worker) stopTurn(cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel != nil {
		w.cancel(cause)
	}
}

func (w *worker) setCancel(c context.CancelCauseFunc) {
	w.mu.Lock()
	w.cancel = c
	w.mu.Unlock()
}

func (s *scheduler) run(ctx context.Context) error {
	s.mu.Lock()
	if s.runCtx != nil {
		s.mu.Unlock()
		return errors.New("bot: engine is already running")
	}
	s.runCtx = ctx
	s.mu.Unlock()
	defer s.retire()

	s.heartbeat(ctx)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		s.watchStops(watchCtx)
	}()
	defer func() { stopWatch(); <-watchDone }()
	steersDone := s.watchSteers(watchCtx) // steer.go
	defer func() { stopWatch(); <-steersDone }()

	poll := time.NewTicker(s.cfg.PollInterval)
	defer poll.Stop()
	beat := time.NewTicker(s.cfg.HeartbeatTTL / 3)
	defer beat.Stop()
	if !s.draining() {
		s.pollPending(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.drain:
			s.handOver()
			<-ctx.Done()
			return nil
		case conv := <-s.wakeups:
			s.tryStart(ctx, conv)
		case <-poll.C:
			s.pollPending(ctx)
		case <-beat.C:
			s.heartbeat(ctx)
		}
	}
}

// retire waits for this replica's turns to end, then drops its heartbeat so
// other replicas take its conversations without waiting for it to expire.
func (s *scheduler) retire() {
	s.wg.Wait()
	defer s.idleOnce.Do(func() { close(s.idle) })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.store.Heartbeat(ctx, s.cfg.Replica, 0); err != nil {
		s.log.Warn("drop heartbeat", "err", err)
	}
	s.mu.Lock()
	s.runCtx = nil
	s.mu.Unlock()
}

func (s *scheduler) heartbeat(ctx context.Context) {
	if err := s.store.Heartbeat(ctx, s.cfg.Replica, s.cfg.HeartbeatTTL); err != nil && ctx.Err() == nil {
		s.log.Warn("heartbeat", "err", err)
	}
}

func (s *scheduler) watchStops(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.store.WatchStops(ctx, func() {}, func(conv string) { s.checkStop(conv) })
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("watch stop requests; retrying", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// queued reports that waiting messages wait in conv's queue, when this
// replica runs conv (the replica running a conversation reports its depth).
func (s *scheduler) queued(conv string, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, mine := s.workers[conv]; mine {
		s.cfg.Observer.QueueDepth(conv, waiting)
	}
}

// wake asks run to try starting conv now; when run is busy the poll finds it.
func (s *scheduler) wake(conv string) {
	select {
	case s.wakeups <- conv:
	default:
	}
}

func (s *scheduler) pollPending(ctx context.Context) {
	convs, err := s.store.Pending(ctx, 100)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("list pending conversations", "err", err)
		}
		return
	}
	for _, conv := range convs {
		if ctx.Err() != nil {
			return
		}
		s.tryStart(ctx, conv)
	}
}

// checkStop makes the worker running conv on this replica, if any, look for
// a stop request now instead of at its next renewal. The request itself is
// read from the store, where it names the lease token and is cleared when the
// worker moves to its next message: a late announcement can never stop a
// later turn than the one the user meant.
func (s *scheduler) checkStop(conv string) {
	s.mu.Lock()
	w := s.workers[conv]
	s.mu.Unlock()
	if w == nil {
		return
	}
	select {
	case w.poke <- struct{}{}:
	default:
	}
}

// tryStart takes conv's lease and its oldest waiting message if this replica
// may: nobody holds the lease, and the conversation's owner is this replica,
// no replica, or a replica whose heartbeat stopped (affinity: the agent's
// thread lives with the replica that ran it).
func (s *scheduler) tryStart(ctx context.Context, conv string) {
	if s.draining() {
		return // run may read a wakeup before it sees the drain
	}
	s.mu.Lock()
	_, busy := s.workers[conv]
	s.mu.Unlock()
	if busy {
		return // the worker takes the next message itself
	}
	owner, err := s.store.Owner(ctx, conv)
	if err != nil {
		s.log.Warn("read owner", "conv", conv, "err", err)
		return
	}
	if owner != "" && owner != s.cfg.Replica {
		alive, err := s.store.ReplicaAlive(ctx, owner)
		if err != nil {
			s.log.Warn("read owner heartbeat", "conv", conv, "owner", owner, "err", err)
			return
		}
		if alive {
			return
		}
	}
	token, item, queued, orphan, err := s.store.TakeTurn(ctx, conv, s.cfg.Replica, s.cfg.LeaseTTL)
	if err != nil {
		s.log.Warn("take turn", "conv", conv, "err", err)
		return
	}
	if orphan != nil {
		var run bool
		if token, item, run = s.runLostFirst(ctx, conv, owner, token, item, orphan); !run {
			s.runner.failOrphan(ctx, conv, owner, orphan)
			s.leftBacklogItem(ctx, orphan) // it may have died waiting for a turn slot
			s.rerunOrphan(ctx, orphan)     // push.go
		}
	}
	if token == 0 {
		if queued == 0 {
			if err := s.store.SettlePending(ctx, conv); err != nil {
				s.log.Warn("settle pending", "conv", conv, "err", err)
			}
		}
		return
	}
	takeover := owner != "" && owner != s.cfg.Replica
	if takeover {
		s.log.Info("took over conversation", "conv", conv, "from", owner)
	}
	w := &worker{conv: conv, token: token, poke: make(chan struct{}, 1)}
	s.mu.Lock()
	s.workers[conv] = w
	run := s.runCtx
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer s.workerDone(conv)
		s.work(run, w, item, takeover)
	}()
}

// work runs turns until the queue is empty, the lease is lost, or ctx ends.
func (s *scheduler) work(ctx context.Context, w *worker, item []byte, takeover bool) {
	log := s.log.With("conv", w.conv, "token", w.token)
	// Runs last, once the lease is let go and no turn runs: what steers
	// wait then (none can come: a steer needs the lease held) are queued.
	defer s.deliverSteers(ctx, w)
	renewCtx, stopRenew := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		s.renew(renewCtx, w)
	}()
	defer func() { stopRenew(); <-renewed }()

	for item != nil {
		var q queued
		switch err := json.Unmarshal(item, &q); {
		case err != nil:
			log.Error("drop undecodable queued message", "err", err)
		case !q.namespaced():
			s.leftBacklog(ctx, q)
			s.runner.refuseLegacy(ctx, q)
		default:
			s.showPositions(ctx, w.conv)
			w.setItem(item)
			release, err := s.waitForSlot(ctx, log, w, q)
			if err == nil || errors.Is(err, errStopped) {
				// It runs now, or never: it waits in its sender's
				// backlog no more. A message handed back below still does.
				s.leftBacklog(ctx, q)
			}
			switch {
			case errors.Is(err, errStopped):
				// Stopped while it waited: it never ran.
				s.showFinished(ctx, log, q, textStoppedBeforeStart)
			case err != nil:
				// The engine stops or drains: the message runs later, here
				// or on another replica.
				s.requeue(ctx, log, w, q)
				return
			default:
				cut := s.runner.run(ctx, w, q, takeover)
				release()
				if cut {
					s.requeue(ctx, log, w, q)
					return
				}
				takeover = false
			}
		}
		if ctx.Err() != nil || s.draining() {
			break // the rest of the queue is for another replica
		}
		next, held, err := s.nextTurn(ctx, log, w)
		if err != nil {
			log.Warn("take next message", "err", err)
			break
		}
		if !held {
			log.Warn("lease lost before the next message; another replica continues")
			return
		}
		item = next
	}
	s.release(ctx, log, w)
}

// requeue hands the message of a turn the shutdown cut short back to the
// queue, first in line, and frees the lease: its reply already says it will
// run again. When the store cannot do it, the lease lapses and the replica
// that takes over finds the turn orphaned and fails its card instead: the
// message is never run twice at once nor silently dropped.
func (s *scheduler) requeue(ctx context.Context, log *slog.Logger, w *worker, q queued) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	ok, err := s.store.RequeueTurn(rctx, w.conv, w.token)
	switch {
	case err != nil:
		log.Error("re-queue a turn cut short by the shutdown; its lease will lapse", "msgid", q.MsgID, "stream", q.StreamID, "err", err)
	case !ok:
		log.Warn("could not re-queue a turn cut short by the shutdown: the lease was lost", "msgid", q.MsgID, "stream", q.StreamID)
	default:
		log.Info("re-queued a turn cut short by the shutdown", "msgid", q.MsgID, "stream", q.StreamID)
	}
}

// renew keeps the lease alive while the worker runs, and ends the running
// turn when the lease is lost or a /stop was recorded for it.
func (s *scheduler) renew(ctx context.Context, w *worker) {
	t := time.NewTicker(s.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.poke:
		}
		held, stop, err := s.store.RenewLease(ctx, w.conv, w.token, s.cfg.LeaseTTL)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.log.Warn("renew lease", "conv", w.conv, "err", err)
			}
		case !held:
			if s.retake(ctx, w) {
				continue
			}
			w.stopTurn(errLeaseLost)
			return
		case stop:
			w.stopTurn(errStopped)
		default:
			// A steer whose announcement this replica missed.
			s.deliverSteers(ctx, w)
		}
	}
}

// showPositions rewrites the queue position on the card of every message
// still waiting behind the one about to run.
func (s *scheduler) showPositions(ctx context.Context, conv string) {
	items, err := s.store.Queued(ctx, conv)
	if err != nil {
		s.log.Warn("read queue", "conv", conv, "err", err)
		return
	}
	s.cfg.Observer.QueueDepth(conv, len(items))
	for i, it := range items {
		var q queued
		if json.Unmarshal(it, &q) != nil {
			continue
		}
		if _, err := s.showWaiting(ctx, q, textQueued(i+1)); err != nil {
			s.log.Warn("update queue position", "conv", conv, "err", err)
		}
	}
}

// showWaiting updates a waiting message's reply on its channel.
func (s *scheduler) showWaiting(ctx context.Context, q queued, text string) (bool, error) {
	ch, ok := s.channels.of(q.Channel)
	if !ok {
		return false, errNoChannel(q)
	}
	return ch.Show(ctx, q.reply(ReplyWaiting, text))
}

// waitForSlot waits for one of this replica's turn slots
// (agent.max_concurrent_turns), showing the message's place in line on its
// card while it waits. A /stop ends the wait with errStopped; the engine's
// end or its drain end it with their cause.
func (s *scheduler) waitForSlot(ctx context.Context, log *slog.Logger, w *worker, q queued) (func(), error) {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w.setCancel(cancel)
	defer w.setCancel(nil)
	go func() {
		// A draining replica starts no more turns: the waiting ones go
		// back to the queue, for the other replicas.
		select {
		case <-s.drain:
			cancel(errDraining)
		case <-wctx.Done():
		}
	}()
	return s.slots.acquire(wctx, func(pos int) {
		log.Debug("waiting for a turn slot", "msgid", q.MsgID, "position", pos)
		if _, err := s.showWaiting(ctx, q, textWaitingForSlot(pos, s.cfg.MaxConcurrentTurns)); err != nil {
			log.Warn("show the place in line for a turn slot", "msgid", q.MsgID, "err", err)
		}
	})
}

// showFinished ends a message's reply with text, without a turn.
func (s *scheduler) showFinished(ctx context.Context, log *slog.Logger, q queued, text string) {
	ch, ok := s.channels.of(q.Channel)
	if !ok {
		log.Error("show reply", "err", errNoChannel(q))
		return
	}
	if _, err := ch.Show(ctx, q.reply(ReplyFinished, text)); err != nil {
		log.Warn("show reply", "msgid", q.MsgID, "err", err)
	}
}
