package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// recordThread adds a thread's use and, when given, its record, and drops
// the threads used least recently beyond the kept number with their
// records, in one step. KEYS: threads, records. ARGV: id, used (ms),
// record ("" keeps the one recorded), kept, TTL (ms).
var recordThread = redis.NewScript(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
local old = redis.call('ZRANGE', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
for _, id in ipairs(old) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return 1
`)

// RecordThread records that conv used thread id at at, and, unless record
// is nil, keeps record (the engine's JSON) as what is known of it. Only
// the ThreadsKept threads used last are kept; each call renews their TTL
// (ConversationTTL).
func (s *Threads) RecordThread(ctx context.Context, conv, id string, record []byte, at time.Time) error {
	k := s.keys.Conv(conv)
	err := recordThread.Run(ctx, s.client, []string{k.Threads(), k.ThreadRecords()},
		id, at.UnixMilli(), string(record), ThreadsKept, ConversationTTL.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("record thread %s of conversation %s: %w", id, conv, err)
	}
	return nil
}

// UsedThreads returns the threads conv used, most recently used first, with
// what RecordThread kept of each (nil when nothing was) and its last use.
func (s *Threads) UsedThreads(ctx context.Context, conv string) (ids []string, records [][]byte, used []time.Time, err error) {
	k := s.keys.Conv(conv)
	zs, err := s.client.ZRevRangeWithScores(ctx, k.Threads(), 0, -1).Result()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list threads of conversation %s: %w", conv, err)
	}
	if len(zs) == 0 {
		return nil, nil, nil, nil
	}
	for _, z := range zs {
		id, _ := z.Member.(string)
		ids = append(ids, id)
		used = append(used, time.UnixMilli(int64(z.Score)))
	}
	vs, err := s.client.HMGet(ctx, k.ThreadRecords(), ids...).Result()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read thread records of conversation %s: %w", conv, err)
	}
	records = make([][]byte, len(ids))
	for i, v := range vs {
		if r, ok := v.(string); ok {
			records[i] = []byte(r)
		}
	}
	return ids, records, used, nil
}
