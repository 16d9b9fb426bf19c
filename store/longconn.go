package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The long connection's holder lease works like a conversation's lease: a
// hash {token, replica} whose token comes from the bot's fencing counter, so
// a holder that lost the lease presents an old token and is refused.

// acquireHolder takes the free holder lease. KEYS: holder, fence. ARGV:
// replica, TTL (ms), fence TTL (ms).
var acquireHolder = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'token', token, 'replica', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return token
`)

// AcquireHolder takes bot's long-connection holder lease for replica when it
// is free; token is 0 when another replica holds it.
func (s *Store) AcquireHolder(ctx context.Context, botID, replica string, ttl time.Duration) (int64, error) {
	token, err := acquireHolder.Run(ctx, s.client, []string{s.keys.Holder(botID), s.keys.HolderFence(botID)},
		replica, ttl.Milliseconds(), FenceTTL.Milliseconds()).Int64()
	if err != nil {
		return 0, fmt.Errorf("acquire long-connection holder lease: %w", err)
	}
	return token, nil
}

// renewHolder extends the lease held with a token, or re-takes it with that
// token when the lease is gone: a holder renews well within the TTL, so a
// missing lease vanished with Redis (a restart, a failover) rather than
// lapsed, and nobody else can hold it at this moment. KEYS: holder. ARGV:
// token, TTL (ms), replica.
var renewHolder = redis.NewScript(`
local t = redis.call('HGET', KEYS[1], 'token')
if t == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if t then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'replica', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

// RenewHolder extends bot's holder lease if token still holds it, and
// re-takes it for replica if it vanished; false when another holds it. The
// caller must renew within the TTL (Holder gives up well before) or a lapsed
// lease would be re-taken too.
func (s *Store) RenewHolder(ctx context.Context, botID, replica string, token int64, ttl time.Duration) (bool, error) {
	n, err := renewHolder.Run(ctx, s.client, []string{s.keys.Holder(botID)}, token, ttl.Milliseconds(), replica).Int()
	if err != nil {
		return false, fmt.Errorf("renew long-connection holder lease: %w", err)
	}
	return n == 1, nil
}

// releaseHolder frees the lease held with a token. KEYS: holder. ARGV: token.
var releaseHolder = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)

// ReleaseHolder frees bot's holder lease if token still holds it, so a
// standby takes over without waiting for the TTL.
func (s *Store) ReleaseHolder(ctx context.Context, botID string, token int64) (bool, error) {
	n, err := releaseHolder.Run(ctx, s.client, []string{s.keys.Holder(botID)}, token).Int()
	if err != nil {
		return false, fmt.Errorf("release long-connection holder lease: %w", err)
	}
	return n == 1, nil
}

// Holder names the replica and token holding bot's lease (token 0: free).
func (s *Store) Holder(ctx context.Context, botID string) (replica string, token int64, err error) {
	v, err := s.client.HMGet(ctx, s.keys.Holder(botID), fieldReplica, fieldToken).Result()
	if err != nil {
		return "", 0, fmt.Errorf("read long-connection holder: %w", err)
	}
	replica, _ = v[0].(string)
	if t, ok := v[1].(string); ok {
		if token, err = strconv.ParseInt(t, 10, 64); err != nil {
			return "", 0, fmt.Errorf("read long-connection holder: bad token %q: %w", t, err)
		}
	}
	return replica, token, nil
}

// PutStreamFrame records frame as the newest of reqID's stream, marks the
// stream running and announces it to the holder.
func (s *Store) PutStreamFrame(ctx context.Context, botID, reqID string, frame []byte) error {
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.keys.LongConnStream(botID, reqID), frame, LongConnStreamTTL)
		p.SAdd(ctx, s.keys.LongConnStreams(botID), reqID)
		p.PExpire(ctx, s.keys.LongConnStreams(botID), LongConnStreamTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store long-connection frame: %w", err)
	}
	if err := s.client.Publish(ctx, s.keys.LongConnFrames(botID), reqID).Err(); err != nil {
		return fmt.Errorf("announce long-connection frame: %w", err)
	}
	return nil
}

// StreamFrame is the newest frame of reqID's stream (nil when none).
func (s *Store) StreamFrame(ctx context.Context, botID, reqID string) ([]byte, error) {
	v, err := s.client.Get(ctx, s.keys.LongConnStream(botID, reqID)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read long-connection frame: %w", err)
	}
	return v, nil
}

// RunningStreams is the newest frame of every stream not yet ended, by
// req_id, for a new holder to re-push.
func (s *Store) RunningStreams(ctx context.Context, botID string) (map[string][]byte, error) {
	ids, err := s.client.SMembers(ctx, s.keys.LongConnStreams(botID)).Result()
	if err != nil {
		return nil, fmt.Errorf("list long-connection streams: %w", err)
	}
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		f, err := s.StreamFrame(ctx, botID, id)
		if err != nil {
			return nil, err
		}
		if f == nil {
			s.client.SRem(ctx, s.keys.LongConnStreams(botID), id) // its frame expired
			continue
		}
		out[id] = f
	}
	return out, nil
}

// endStream forgets a stream, for the holder of token only. KEYS: holder,
// stream, streams. ARGV: token, req_id, the frame that was pushed last.
var endStream = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 1 end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[3], ARGV[2])
return 1
`)

// EndStream forgets reqID's stream once its final frame was pushed, if token
// still holds the lease (a deposed holder must not hide a stream from its
// successor); a newer frame stored meanwhile keeps the stream running.
func (s *Store) EndStream(ctx context.Context, botID, reqID string, token int64, pushed []byte) (bool, error) {
	n, err := endStream.Run(ctx, s.client,
		[]string{s.keys.Holder(botID), s.keys.LongConnStream(botID, reqID), s.keys.LongConnStreams(botID)},
		token, reqID, pushed).Int()
	if err != nil {
		return false, fmt.Errorf("end long-connection stream: %w", err)
	}
	return n == 1, nil
}

// WatchStreamFrames calls fn with the req_id of every frame announced for
// bot until ctx ends (nil). ready is called once the subscription is live.
func (s *Store) WatchStreamFrames(ctx context.Context, botID string, ready func(), fn func(reqID string)) error {
	sub := s.client.Subscribe(ctx, s.keys.LongConnFrames(botID))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("subscribe to long-connection frames: %w", err)
	}
	ready()
	ch := sub.Channel()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return errors.New("long-connection frame subscription closed")
			}
			fn(m.Payload)
		}
	}
}
