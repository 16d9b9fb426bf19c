package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// A webhook message with files is answered before its files are fetched
// (WeCom will not deliver it again), so it is recorded here first: the
// process fetching it holds a claim it renews, and when the claim lapses
// (the process died) another takes the message over. The store keeps the
// message as the webhook encoded it and never reads it.

// recordFetch records a message and claims it, unless it is recorded
// already. KEYS: set, message, claim. ARGV: stream, message, claimer,
// claim TTL (ms), fetch TTL (ms). Returns 1 when recorded.
var recordFetch = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// RecordFetch records the message of a stream whose files claimer fetches
// now, claimed for claim; recorded is false when it was recorded already
// (a redelivery), and the claim is then left as it is. TTL FetchTTL.
func (s *Webhook) RecordFetch(ctx context.Context, streamID string, msg []byte, claimer string, claim time.Duration) (recorded bool, err error) {
	n, err := recordFetch.Run(ctx, s.client, []string{s.keys.Fetches(), s.keys.Fetch(streamID), s.keys.FetchClaim(streamID)},
		streamID, msg, claimer, claim.Milliseconds(), FetchTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("record the message of stream %s: %w", streamID, err)
	}
	return n == 1, nil
}

// renewFetch extends a claim its claimer still holds. KEYS: claim. ARGV:
// claimer, TTL (ms).
var renewFetch = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// RenewFetch extends claimer's claim on a stream's message; held is false
// when the claim lapsed (another process may have taken the message over).
func (s *Webhook) RenewFetch(ctx context.Context, streamID, claimer string, claim time.Duration) (held bool, err error) {
	n, err := renewFetch.Run(ctx, s.client, []string{s.keys.FetchClaim(streamID)}, claimer, claim.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("renew the fetch claim of stream %s: %w", streamID, err)
	}
	return n == 1, nil
}

// ForgetFetch drops a stream's message once it was received or settled.
func (s *Webhook) ForgetFetch(ctx context.Context, streamID string) error {
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.keys.Fetch(streamID), s.keys.FetchClaim(streamID))
		p.SRem(ctx, s.keys.Fetches(), streamID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("forget the message of stream %s: %w", streamID, err)
	}
	return nil
}

// takeLapsedFetch claims a recorded message whose claim lapsed; a stream
// whose message expired leaves the set. KEYS: set, message, claim. ARGV:
// stream, claimer, claim TTL (ms). Returns the message, or false.
var takeLapsedFetch = redis.NewScript(`
local msg = redis.call('GET', KEYS[2])
if not msg then
  redis.call('SREM', KEYS[1], ARGV[1])
  return false
end
if redis.call('EXISTS', KEYS[3]) == 1 then return false end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return msg
`)

// TakeLapsedFetches claims, for claimer, every recorded message whose claim
// lapsed: stream id → message.
func (s *Webhook) TakeLapsedFetches(ctx context.Context, claimer string, claim time.Duration) (map[string][]byte, error) {
	streams, err := s.client.SMembers(ctx, s.keys.Fetches()).Result()
	if err != nil {
		return nil, fmt.Errorf("list the messages whose files are fetched: %w", err)
	}
	out := map[string][]byte{}
	for _, id := range streams {
		msg, err := takeLapsedFetch.Run(ctx, s.client, []string{s.keys.Fetches(), s.keys.Fetch(id), s.keys.FetchClaim(id)},
			id, claimer, claim.Milliseconds()).Text()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("take over the message of stream %s: %w", id, err)
		}
		out[id] = []byte(msg)
	}
	return out, nil
}
