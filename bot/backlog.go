package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// DefaultMaxQueuedPerUser is access.max_queued_per_user's default. It
// matches a conversation's own queue (Config.MaxQueue, 5): one user can
// still fill the queue of the conversation they work in, but not that of
// several groups at once, so the turn slots of a replica
// (agent.max_concurrent_turns) stay shared among the people waiting.
const DefaultMaxQueuedPerUser = 5

// textBacklogFull refuses a message beyond access.max_queued_per_user.
func textBacklogFull(limit int) string {
	return fmt.Sprintf("You have %d messages waiting already, the most one person may (access.max_queued_per_user). "+
		"This one was not queued: send it again once one of them has started.", limit)
}

// backlogMember names one accepted delivery in its sender's backlog: the
// stream intake gave it is unique, and the conversation keeps the member
// readable in Redis.
func backlogMember(conv, stream string) string { return conv + " " + stream }

// reserveBacklog counts m in its sender's backlog before it is queued.
// ok is false when the backlog is full; undo (never nil) stops counting m
// again when the caller then does not queue it, and does nothing when m
// was counted before (a repeat of a queued delivery keeps its place).
func (in *intake) reserveBacklog(ctx context.Context, log *slog.Logger, m Message) (ok bool, undo func(), err error) {
	member := backlogMember(m.Conversation.Key(), m.Reply.Stream)
	ok, added, err := in.store.ReserveBacklog(ctx, m.User, member, in.cfg.MaxQueuedPerUser)
	if err != nil {
		return false, func() {}, fmt.Errorf("count the backlog of message %s: %w", m.ID, err)
	}
	if !added {
		return ok, func() {}, nil
	}
	return true, func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), retryAttemptTimeout)
		defer cancel()
		if err := in.store.ReleaseBacklog(rctx, m.User, member); err != nil {
			log.Warn("uncount a message that was not queued; it counts in the backlog until it expires", "err", err)
		}
	}, nil
}

// refuseBacklog answers a message beyond the sender's backlog. It is
// claimed as any answer is, so a repeat of it gets the same refusal, and
// nothing of it is queued; the audit trail has it received and refused,
// as a message a full queue refuses.
func (in *intake) refuseBacklog(ctx context.Context, log *slog.Logger, ch Channel, m Message, text string) (Receipt, error) {
	recorded, claimed, err := in.store.ClaimMessage(ctx, m.Conversation.Key(), m.User, m.ID, m.Reply.Stream)
	if err != nil {
		return Receipt{}, fmt.Errorf("dedupe message %s: %w", m.ID, err)
	}
	if !claimed {
		return repeated(m, recorded), nil
	}
	log.Info("refused: the sender's backlog is full", "limit", in.cfg.MaxQueuedPerUser)
	in.auditMessage(ctx, m, text)
	in.auditRefused(ctx, m, RefusedBacklogFull)
	rc, err := in.show(ctx, ch, replyTo(m, ReplyFinished, textBacklogFull(in.cfg.MaxQueuedPerUser)))
	if err != nil {
		in.releaseClaim(ctx, log, m)
	}
	return rc, err
}

// leftBacklog stops counting q in its sender's backlog: its turn starts,
// or it ends without one. A failure only leaves it counted until it
// expires (store.QueueTTL).
func (s *scheduler) leftBacklog(ctx context.Context, q queued) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), retryAttemptTimeout)
	defer cancel()
	if err := s.store.ReleaseBacklog(rctx, q.User, backlogMember(q.Conversation, q.StreamID)); err != nil {
		s.log.Warn("uncount a message that left the queue; it counts in its sender's backlog until it expires",
			"conv", q.Conversation, "msgid", q.MsgID, "err", err)
	}
}

// leftBacklogItem is leftBacklog for a queue item as stored.
func (s *scheduler) leftBacklogItem(ctx context.Context, item []byte) {
	var q queued
	if json.Unmarshal(item, &q) == nil {
		s.leftBacklog(ctx, q)
	}
}
