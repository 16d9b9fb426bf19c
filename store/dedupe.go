package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// ClaimMessage records msgID → streamID with SET NX unless user's msgID was
// seen in conv within DedupeTTL. It returns the stream id recorded and
// whether this call recorded it, so a repeated callback is answered with the
// stream its first delivery started. It is for a message answered at once
// (a command, a refusal) rather than queued, and shares ClaimAndEnqueue's
// record; a caller whose answer then fails must ReleaseClaim, or the retry
// would find a claim with no answer.
func (s *Dedupe) ClaimMessage(ctx context.Context, conv, user, msgID, streamID string) (string, bool, error) {
	key := s.keys.Conv(conv).Dedupe(user, msgID)
	// SET NX GET does both steps in one round trip (Redis ≥ 7).
	prev, err := s.client.SetArgs(ctx, key, streamID, redis.SetArgs{Mode: "NX", Get: true, TTL: DedupeTTL}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return streamID, true, nil
	case err != nil:
		return "", false, fmt.Errorf("dedupe msgid: %w", err)
	}
	return prev, false, nil
}

// claimAndEnqueue records a message's claim and queues it in one step, so
// a failure leaves neither: WeCom's retry of a delivery that failed is then
// a first delivery again, and a retry of one that landed finds its stream.
// The claim is kept even when the queue is full, so a repeat gets the same
// refusal rather than another try.
// KEYS: claim, queue, lease. ARGV: stream id, claim TTL (ms), item, max,
// queue TTL (ms). Returns {claimed, recorded stream, position, leased}.
var claimAndEnqueue = redis.NewScript(`
local leased = redis.call('EXISTS', KEYS[3])
local prev = redis.call('GET', KEYS[1])
if prev then return {0, prev, 0, leased} end
local n = 0
if redis.call('LLEN', KEYS[2]) < tonumber(ARGV[4]) then
  n = redis.call('RPUSH', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, ARGV[1], n, leased}
`)

// ClaimAndEnqueue claims user's msgID in conv for streamID and appends
// item to the conversation's queue (unless it holds max items) in one
// atomic step: if it fails, nothing was claimed, so the platform's retry
// runs the message. A message claimed before is not queued again: claimed
// is false and recorded is the first delivery's stream. position is the
// item's 1-based place in the queue, 0 when the queue was full or the
// message was claimed before; leased says whether a turn holds the lease.
// The conversation is marked pending after either, since the mark lives
// outside the conversation's slot and a failed mark must heal on the retry.
func (s *Dedupe) ClaimAndEnqueue(ctx context.Context, conv, user, msgID, streamID string, item []byte, max int) (
	recorded string, claimed bool, position int, leased bool, err error,
) {
	v, err := claimAndEnqueue.Run(ctx, s.client,
		[]string{s.keys.Conv(conv).Dedupe(user, msgID), s.keys.Conv(conv).Queue(), s.keys.Conv(conv).Lease()},
		streamID, DedupeTTL.Milliseconds(), item, max, QueueTTL.Milliseconds()).Slice()
	if err != nil {
		return "", false, 0, false, fmt.Errorf("claim and enqueue message %s: %w", msgID, err)
	}
	if len(v) != 4 {
		return "", false, 0, false, fmt.Errorf("claim and enqueue message %s: unexpected reply %v", msgID, v)
	}
	recorded, _ = v[1].(string)
	pos, _ := v[2].(int64)
	claimed, position, leased = v[0] == int64(1), int(pos), v[3] == int64(1)
	if position > 0 || !claimed {
		if err := markPending(ctx, s.conn, conv); err != nil {
			return recorded, claimed, position, leased, err
		}
	}
	return recorded, claimed, position, leased, nil
}

// releaseClaim drops a claim only while it still names the caller's stream.
var releaseClaim = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`)

// ReleaseClaim forgets that user's msgID in conv was claimed for streamID, so the
// platform's retry of a delivery whose answer could not be stored is run
// again. A claim recorded for another stream is left alone.
func (s *Dedupe) ReleaseClaim(ctx context.Context, conv, user, msgID, streamID string) error {
	if err := releaseClaim.Run(ctx, s.client, []string{s.keys.Conv(conv).Dedupe(user, msgID)}, streamID).Err(); err != nil {
		return fmt.Errorf("release claim of message %s: %w", msgID, err)
	}
	return nil
}
