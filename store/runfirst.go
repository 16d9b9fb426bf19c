package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// runFirst makes item the conversation's next turn, ahead of every waiting
// message, for a lost turn that runs once more (the replica running it died).
// With the caller's token (it holds the lease, running a message TakeTurn
// just popped), that message goes back to the head of the queue and item is
// recorded running instead. With token 0 (TakeTurn found the queue empty)
// the free lease is taken with item running. When someone else holds the
// lease, item waits first in line for that holder.
// KEYS: lease, queue, fence, owner, stop, running. ARGV: token, replica,
// item, lease TTL (ms), fence TTL (ms), owner TTL (ms), running TTL (ms),
// queue TTL (ms). Returns the token item runs under, or 0 when it waits.
var runFirst = redis.NewScript(`
if ARGV[1] ~= '0' and redis.call('HGET', KEYS[1], 'token') == ARGV[1] then
  local cur = redis.call('GET', KEYS[6])
  if cur then
    redis.call('LPUSH', KEYS[2], cur)
    redis.call('PEXPIRE', KEYS[2], ARGV[8])
  end
  redis.call('SET', KEYS[6], ARGV[3], 'PX', ARGV[7])
  return tonumber(ARGV[1])
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('LPUSH', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[8])
  return 0
end
local token = redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('HSET', KEYS[1], 'token', token, 'replica', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[4], ARGV[2], 'PX', ARGV[6])
redis.call('SET', KEYS[6], ARGV[3], 'PX', ARGV[7])
redis.call('DEL', KEYS[5])
return token
`)

// RunFirst makes item, an orphaned turn to run once more, the next turn of
// conv so it keeps its place before the messages sent after it. token is
// what TakeTurn returned (0 when it took no lease). run is the token the
// caller now runs item under; 0 means another replica holds the lease and
// item waits first in its queue (the caller runs nothing).
func (s *Queue) RunFirst(ctx context.Context, conv, replica string, token int64, item []byte, ttl time.Duration) (run int64, err error) {
	k := s.keys.Conv(conv)
	run, err = runFirst.Run(ctx, s.client,
		[]string{k.Lease(), k.Queue(), k.Fence(), k.Owner(), k.Stop(), k.Running()},
		token, replica, item, ttl.Milliseconds(), FenceTTL.Milliseconds(), ConversationTTL.Milliseconds(),
		RunningTTL.Milliseconds(), QueueTTL.Milliseconds()).Int64()
	if err != nil {
		return 0, fmt.Errorf("run lost turn first: %w", err)
	}
	if run == 0 {
		// The holder finds it at its next turn; pending makes sure
		// a replica looks should that holder be gone too.
		if err := markPending(ctx, s.conn, conv); err != nil {
			return 0, err
		}
	}
	return run, nil
}
