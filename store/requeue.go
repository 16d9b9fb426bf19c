package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// requeueTurn puts the running item of the token's holder back at the head
// of the queue and frees the lease in one step: no replica can take the
// conversation in between and run a later message first, and the item is
// never in neither place.
// KEYS: lease, queue, stop, running. ARGV: token, queue TTL (ms).
var requeueTurn = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
local item = redis.call('GET', KEYS[4])
if item then
  redis.call('LPUSH', KEYS[2], item)
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
if item then return 1 end
return 2
`)

// RequeueTurn hands the turn the holder of token is running back to the
// queue, first in line, and frees the lease, for a replica that shuts down
// before the turn ends: whoever takes the conversation next runs it again.
// requeued is false when token no longer holds the lease (nothing changes)
// or no turn was recorded running (the lease is freed).
func (s *Queue) RequeueTurn(ctx context.Context, conv string, token int64) (requeued bool, err error) {
	n, err := requeueTurn.Run(ctx, s.client,
		[]string{s.keys.Conv(conv).Lease(), s.keys.Conv(conv).Queue(), s.keys.Conv(conv).Stop(), s.keys.Conv(conv).Running()},
		token, QueueTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("requeue turn: %w", err)
	}
	if n != 1 {
		return false, nil
	}
	// Replicas look for work in the pending set; it spans conversations,
	// so it cannot share the script's slot.
	if err := markPending(ctx, s.conn, conv); err != nil {
		return true, err
	}
	return true, nil
}
