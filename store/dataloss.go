package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// noteMissingFrame tells whether Redis lost its data recently. The mark is
// written the first time a frame is found missing and renewed every time
// after; a missing mark means nothing of this Redis's data predates now,
// so the loss window opens. KEYS: mark, loss. ARGV: mark TTL (ms), window
// (ms). Returns 1 while the window is open.
var noteMissingFrame = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
  return 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('EXISTS', KEYS[2])
`)

// NoteMissingFrame is called when a stream's frame is missing. lost is
// true while Redis lost its data (restarted empty, failed over to a replica
// that had not seen it) less than window ago, as far as anyone can tell:
// the first missing frame after the loss opens the window, so it opens no
// earlier than the loss and lasts at least window after it. A Redis that
// never held wecodex's data looks the same, once: nothing depends on a
// frame there yet.
func (s *Webhook) NoteMissingFrame(ctx context.Context, window time.Duration) (lost bool, err error) {
	n, err := noteMissingFrame.Run(ctx, s.client, []string{s.keys.DataMark(), s.keys.DataLoss()},
		DataMarkTTL.Milliseconds(), window.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("note a missing frame: %w", err)
	}
	return n == 1, nil
}

// TurnRunning reports whether a turn of conv holds its lease on a replica
// whose heartbeat is current: a frame of that conversation missing then is
// one Redis lost, which the replica writes again, not an unknown stream.
func (s *Webhook) TurnRunning(ctx context.Context, conv string) (bool, error) {
	replica, err := s.client.HGet(ctx, s.keys.Conv(conv).Lease(), fieldReplica).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the lease of %s: %w", conv, err)
	}
	n, err := s.client.Exists(ctx, s.keys.Replica(replica)).Result()
	if err != nil {
		return false, fmt.Errorf("read the heartbeat of %s: %w", replica, err)
	}
	return n == 1, nil
}
