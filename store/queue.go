package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// enqueue appends an item unless the queue is full. It returns the new length
// (0 when refused) and whether a turn holds the lease.
// KEYS: queue, lease. ARGV: item, max, queue TTL (ms).
var enqueue = redis.NewScript(`
local leased = redis.call('EXISTS', KEYS[2])
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[2]) then return {0, leased} end
local n = redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {n, leased}
`)

// Enqueue appends item to the conversation's FIFO queue unless it already
// holds max items, and marks the conversation pending so a replica polling
// for work finds it. position is the item's 1-based place (0 when refused);
// leased says whether a turn holds the lease now.
func (s *Queue) Enqueue(ctx context.Context, conv string, item []byte, max int) (position int, leased bool, err error) {
	v, err := enqueue.Run(ctx, s.client, []string{s.keys.Conv(conv).Queue(), s.keys.Conv(conv).Lease()},
		item, max, QueueTTL.Milliseconds()).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("enqueue: %w", err)
	}
	if v[0] > 0 {
		// The pending set spans conversations, so it cannot share the
		// script's slot; SettlePending copes with the gap between the two.
		if err := markPending(ctx, s.conn, conv); err != nil {
			return 0, false, err
		}
	}
	return int(v[0]), v[1] == 1, nil
}

// Queued returns the conversation's waiting items, oldest first.
func (s *Queue) Queued(ctx context.Context, conv string) ([][]byte, error) {
	v, err := s.client.LRange(ctx, s.keys.Conv(conv).Queue(), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	out := make([][]byte, len(v))
	for i, it := range v {
		out[i] = []byte(it)
	}
	return out, nil
}

// Pending returns up to max conversations that may have waiting items (a
// random sample when there are more).
func (s *Queue) Pending(ctx context.Context, max int) ([]string, error) {
	v, err := s.client.SRandMemberN(ctx, s.keys.Pending(), int64(max)).Result()
	if err != nil {
		return nil, fmt.Errorf("list pending conversations: %w", err)
	}
	return v, nil
}

// SettlePending drops conv from the pending set when its queue is empty and
// no turn is recorded running: a running turn's holder may die, and the
// conversation must stay where replicas poll so one of them finds the turn
// once the lease lapses. An Enqueue racing with it pushes before it marks,
// and a pop moves the item into the running record in one step, so checking
// again after the removal and marking back catches every interleaving.
func (s *Queue) SettlePending(ctx context.Context, conv string) error {
	pk := s.keys.Pending()
	waiting, err := busy(ctx, s.conn, conv)
	if err != nil || waiting {
		return err
	}
	if err := s.client.SRem(ctx, pk, conv).Err(); err != nil {
		return fmt.Errorf("settle pending: %w", err)
	}
	if waiting, err = busy(ctx, s.conn, conv); err != nil {
		return err
	}
	if waiting {
		return markPending(ctx, s.conn, conv)
	}
	return nil
}

// busy reports whether conv has waiting items or a turn recorded running.
// The queue is read first: an item popped in between is found running.
func busy(ctx context.Context, s conn, conv string) (bool, error) {
	var queued *redis.IntCmd
	var running *redis.IntCmd
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		queued = p.LLen(ctx, s.keys.Conv(conv).Queue())
		running = p.Exists(ctx, s.keys.Conv(conv).Running())
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("settle pending: %w", err)
	}
	return queued.Val() > 0 || running.Val() > 0, nil
}

// markPending adds conv to the pending set and renews the set's TTL, which
// matches the queues': a set idle that long lists only expired queues.
func markPending(ctx context.Context, s conn, conv string) error {
	pk := s.keys.Pending()
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, pk, conv)
		p.Expire(ctx, pk, QueueTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("mark conversation pending: %w", err)
	}
	return nil
}
