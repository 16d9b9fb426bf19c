package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// retakeLease gives a holder back a lease that vanished under it, when no
// one else can have held it since. Three cases tell "vanished" from
// "taken":
//   - the fencing counter is gone too: Redis lost the conversation's keys
//     (restarted empty, or failed over to a replica that had not seen
//     them), so no later token was issued through this Redis;
//   - the counter still reads the holder's token and its turn is still
//     recorded running: the lease lapsed (Redis or the holder stalled past
//     its TTL) and nobody took it or settled the turn;
//   - anything else (a later token, or the lapsed turn already handed to
//     another replica as an orphan) means another holder was there: taken.
//
// A re-taken lease raises the counter to the holder's token, so the next
// acquisition still gets a larger one: fencing survives the lost data.
// KEYS: lease, fence, running, owner. ARGV: token, replica, running item
// ("" for none), lease TTL (ms), fence TTL (ms), running TTL (ms), owner
// TTL (ms). Returns 1 when the token holds the lease after the call.
var retakeLease = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'token')
if cur then
  if cur ~= ARGV[1] then return 0 end
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
local fence = redis.call('GET', KEYS[2])
if fence then
  if fence ~= ARGV[1] or redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
else
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[5])
end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'replica', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[6]) end
redis.call('SET', KEYS[4], ARGV[2], 'PX', ARGV[7])
return 1
`)

// RetakeLease is what a holder calls when RenewLease found its token no
// longer holding the lease. held is true when the lease had vanished with
// no other holder since (Redis restarted empty or failed over, or the lease
// lapsed unclaimed): the holder has it again under the same token, running
// recorded as its turn (nil keeps whatever is recorded), and may go on.
// held is false when another holder took the lease: the old holder must
// stop, as before.
func (s *Queue) RetakeLease(ctx context.Context, conv, replica string, token int64, running []byte, ttl time.Duration) (held bool, err error) {
	n, err := retakeLease.Run(ctx, s.client,
		[]string{s.keys.Conv(conv).Lease(), s.keys.Conv(conv).Fence(), s.keys.Conv(conv).Running(), s.keys.Conv(conv).Owner()},
		token, replica, running, ttl.Milliseconds(), FenceTTL.Milliseconds(), RunningTTL.Milliseconds(),
		ConversationTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("retake lease of %s: %w", conv, err)
	}
	if n != 1 {
		return false, nil
	}
	// A Redis that lost its data lost the pending mark too: without it no
	// replica would find this turn if its holder died now.
	if err := markPending(ctx, s.conn, conv); err != nil {
		return true, err
	}
	return true, nil
}
