package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// reserveBacklog adds member to a user's backlog unless it holds max
// members already; members whose expiry passed are dropped first, so a
// message whose release was lost (its replica died) stops counting once its
// queue would have expired too. A member already there is kept and counts
// once. KEYS: backlog. ARGV: member, max, now (unix ms), TTL (ms).
// Returns 0 (refused), 1 (already there) or 2 (added).
var reserveBacklog = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 2
`)

// ReserveBacklog counts message (any id unique to one accepted delivery,
// such as its conversation and stream) in user's backlog across every
// conversation and replica, unless the backlog holds max messages already.
// reserved is false when it is full; added is false when message was
// counted before (a repeated delivery of it), so only the caller that
// added it may ReleaseBacklog after failing to queue it.
func (s *Queue) ReserveBacklog(ctx context.Context, user, message string, max int) (reserved, added bool, err error) {
	n, err := reserveBacklog.Run(ctx, s.client, []string{s.keys.Backlog(user)},
		message, max, time.Now().UnixMilli(), QueueTTL.Milliseconds()).Int()
	if err != nil {
		return false, false, fmt.Errorf("count the backlog of %s: %w", user, err)
	}
	return n > 0, n == 2, nil
}

// ReleaseBacklog stops counting message in user's backlog: its turn
// started, it ended without one, or it was never queued.
func (s *Queue) ReleaseBacklog(ctx context.Context, user, message string) error {
	if err := s.client.ZRem(ctx, s.keys.Backlog(user), message).Err(); err != nil {
		return fmt.Errorf("release a message from the backlog of %s: %w", user, err)
	}
	return nil
}

// Backlog is how many messages of user wait now.
func (s *Queue) Backlog(ctx context.Context, user string) (int, error) {
	n, err := s.client.ZCount(ctx, s.keys.Backlog(user), fmt.Sprint(time.Now().UnixMilli()), "+inf").Result()
	if err != nil {
		return 0, fmt.Errorf("read the backlog of %s: %w", user, err)
	}
	return int(n), nil
}
