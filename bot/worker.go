package bot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/cards"
)

// Why a turn's context was cancelled, read back with context.Cause.
var (
	errStopped   = errors.New("stopped with /stop")
	errTimeout   = errors.New("turn timed out")
	errLeaseLost = errors.New("lost the conversation lease")
)

// worker runs the turns of one conversation on this replica while it holds
// the conversation's lease: the taken message, then each message that waited
// behind it, in order.
type worker struct {
	conv  string
	token int64
	// poke asks the renewer to check the lease now, for a /stop.
	poke chan struct{}

	mu     sync.Mutex
	cancel context.CancelCauseFunc // cancels the running turn
}

// stopTurn cancels the running turn, if any, with cause.
func (w *worker) stopTurn(cause error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancel == nil {
		return false
	}
	w.cancel(cause)
	return true
}

func (w *worker) setCancel(c context.CancelCauseFunc) {
	w.mu.Lock()
	w.cancel = c
	w.mu.Unlock()
}

// checkStop makes the worker running conv on this replica, if any, look for
// a stop request now instead of at its next renewal. The request itself is
// read from the store, where it names the lease token and is cleared when the
// worker moves to its next message: a late announcement can never stop a
// later turn than the one the user meant.
func (e *Engine) checkStop(conv string) bool {
	e.mu.Lock()
	w := e.workers[conv]
	e.mu.Unlock()
	if w == nil {
		return false
	}
	select {
	case w.poke <- struct{}{}:
	default:
	}
	return true
}

// tryStart takes conv's lease and its oldest waiting message if this replica
// may: nobody holds the lease, and the conversation's owner is this replica,
// no replica, or a replica whose heartbeat stopped (affinity: the agent's
// thread lives with the replica that ran it).
func (e *Engine) tryStart(ctx context.Context, conv string) {
	e.mu.Lock()
	_, busy := e.workers[conv]
	e.mu.Unlock()
	if busy {
		return // the worker takes the next message itself
	}
	owner, err := e.store.Owner(ctx, conv)
	if err != nil {
		e.log.Warn("read owner", "conv", conv, "err", err)
		return
	}
	if owner != "" && owner != e.cfg.Replica {
		alive, err := e.store.ReplicaAlive(ctx, owner)
		if err != nil {
			e.log.Warn("read owner heartbeat", "conv", conv, "owner", owner, "err", err)
			return
		}
		if alive {
			return
		}
	}
	token, item, left, orphan, err := e.store.TakeTurn(ctx, conv, e.cfg.Replica, e.cfg.LeaseTTL)
	if err != nil {
		e.log.Warn("take turn", "conv", conv, "err", err)
		return
	}
	if orphan != nil {
		e.failOrphan(ctx, conv, owner, orphan)
	}
	if token == 0 {
		if left == 0 {
			if err := e.store.SettlePending(ctx, conv); err != nil {
				e.log.Warn("settle pending", "conv", conv, "err", err)
			}
		}
		return
	}
	takeover := owner != "" && owner != e.cfg.Replica
	if takeover {
		e.log.Info("took over conversation", "conv", conv, "from", owner)
	}
	w := &worker{conv: conv, token: token, poke: make(chan struct{}, 1)}
	e.mu.Lock()
	e.workers[conv] = w
	run := e.runCtx
	e.wg.Add(1)
	e.mu.Unlock()
	go func() {
		defer e.wg.Done()
		defer func() {
			e.mu.Lock()
			delete(e.workers, conv)
			e.mu.Unlock()
		}()
		e.work(run, w, item, takeover)
	}()
}

// work runs turns until the queue is empty, the lease is lost, or ctx ends.
func (e *Engine) work(ctx context.Context, w *worker, item []byte, takeover bool) {
	log := e.log.With("conv", w.conv, "token", w.token)
	renewCtx, stopRenew := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		e.renew(renewCtx, w)
	}()
	defer func() { stopRenew(); <-renewed }()

	for item != nil {
		var q queued
		switch err := json.Unmarshal(item, &q); {
		case err != nil:
			log.Error("drop undecodable queued message", "err", err)
		case !namespaced(q.Conversation):
			e.refuseLegacy(ctx, q)
		default:
			e.showPositions(ctx, w.conv)
			e.runTurn(ctx, w, q, takeover)
			takeover = false
		}
		if ctx.Err() != nil {
			break
		}
		next, held, err := e.store.NextTurn(ctx, w.conv, w.token, e.cfg.LeaseTTL)
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
	// Stopping early (shutdown, store error): hand the queue to whoever comes
	// next without making it wait for the lease to expire.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := e.store.ReleaseLease(rctx, w.conv, w.token); err != nil {
		log.Warn("release lease", "err", err)
	}
}

// renew keeps the lease alive while the worker runs, and ends the running
// turn when the lease is lost or a /stop was recorded for it.
func (e *Engine) renew(ctx context.Context, w *worker) {
	t := time.NewTicker(e.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.poke:
		}
		held, stop, err := e.store.RenewLease(ctx, w.conv, w.token, e.cfg.LeaseTTL)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				e.log.Warn("renew lease", "conv", w.conv, "err", err)
			}
		case !held:
			w.stopTurn(errLeaseLost)
			return
		case stop:
			w.stopTurn(errStopped)
		}
	}
}

// showPositions rewrites the queue position on the card of every message
// still waiting behind the one about to run.
func (e *Engine) showPositions(ctx context.Context, conv string) {
	items, err := e.store.Queued(ctx, conv)
	if err != nil {
		e.log.Warn("read queue", "conv", conv, "err", err)
		return
	}
	for i, it := range items {
		var q queued
		if json.Unmarshal(it, &q) != nil {
			continue
		}
		if _, err := e.saveWaiting(ctx, q.StreamID, q.owner(), textQueued(i+1)); err != nil {
			e.log.Warn("update queue position", "conv", conv, "err", err)
		}
	}
}

// namespaced reports whether conv is a key ConversationKey made. Keys before
// it were bare user or chat ids, which cannot tell a user from a group with
// the same id.
func namespaced(conv string) bool {
	return strings.HasPrefix(conv, string(ChatSingle)+":") || strings.HasPrefix(conv, string(ChatGroup)+":")
}

// refuseLegacy finishes the card of a message queued under a conversation
// key from before keys were namespaced (it waited across an upgrade).
// Running it would use that key's session and workspace, which may be a
// group's and a user's at once; the card asks for the message again, which
// then runs in its own conversation.
func (e *Engine) refuseLegacy(ctx context.Context, q queued) {
	q.Conversation = ConversationKey(q.ChatType, q.Conversation) // the key its asker refreshes with
	card := cards.New(cards.WithTitle(q.Text), cards.WithStreamLimit(cards.StreamMaxBytes-windowNoteRoom))
	card.SetStatus(cards.Status{State: cards.StateFailed, Detail: textLegacyQueued})
	if _, err := e.saveTurnFrame(ctx, q.StreamID, q.owner(), frameFinished, card.Stream(0, 0).Content); err != nil {
		e.log.Error("finish the card of a message queued before the upgrade", "msgid", q.MsgID, "err", err)
		return
	}
	e.log.Warn("message queued under a conversation key from before the upgrade was not run; its card asks for it again", "msgid", q.MsgID)
}

// failOrphan finishes the card of a turn whose replica stopped mid-turn: its
// lease lapsed with the turn still recorded running. The message is lost with
// that replica, so the card says so and asks for it again, unless the card
// is already finished (the holder was slow, not dead, and got there first).
func (e *Engine) failOrphan(ctx context.Context, conv, owner string, item []byte) {
	var q queued
	if err := json.Unmarshal(item, &q); err != nil {
		e.log.Error("drop undecodable orphaned turn", "conv", conv, "err", err)
		return
	}
	log := e.log.With("conv", conv, "msgid", q.MsgID, "stream", q.StreamID, "turn_replica", owner)
	card := cards.New(cards.WithTitle(q.Text), cards.WithStreamLimit(cards.StreamMaxBytes-windowNoteRoom),
		cards.WithProgressStyle(cards.ProgressStyle(e.cfg.ProgressStyle)))
	card.SetStatus(cards.Status{State: cards.StateFailed, Detail: textServerLost})
	saved, err := e.saveTurnFrame(ctx, q.StreamID, q.owner(), frameFinished, card.Stream(0, 0).Content)
	switch {
	case err != nil:
		log.Error("mark the turn of a stopped replica failed", "err", err)
	case saved:
		log.Warn("the replica running a turn stopped before finishing it; its card now says so")
	default:
		log.Info("the turn of a lapsed lease had already finished its card")
	}
}
