package store

import (
	"context"
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
func (s *LongConn) AcquireHolder(ctx context.Context, botID, replica string, ttl time.Duration) (int64, error) {
	token, err := acquireHolder.Run(ctx, s.client, []string{s.keys.LongConn(botID).Holder(), s.keys.LongConn(botID).HolderFence()},
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
func (s *LongConn) RenewHolder(ctx context.Context, botID, replica string, token int64, ttl time.Duration) (bool, error) {
	n, err := renewHolder.Run(ctx, s.client, []string{s.keys.LongConn(botID).Holder()}, token, ttl.Milliseconds(), replica).Int()
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
func (s *LongConn) ReleaseHolder(ctx context.Context, botID string, token int64) (bool, error) {
	n, err := releaseHolder.Run(ctx, s.client, []string{s.keys.LongConn(botID).Holder()}, token).Int()
	if err != nil {
		return false, fmt.Errorf("release long-connection holder lease: %w", err)
	}
	return n == 1, nil
}

// Holder names the replica and token holding bot's lease (token 0: free).
func (s *LongConn) Holder(ctx context.Context, botID string) (replica string, token int64, err error) {
	v, err := s.client.HMGet(ctx, s.keys.LongConn(botID).Holder(), fieldReplica, fieldToken).Result()
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

// A stream's record is a hash {seq, frame, ended}: seq orders the frames of
// one stream across replicas (zero-padded, so Lua compares the strings: its
// numbers are doubles and the seqs exceed 2^53), and ended, once set, makes
// the stream take no further frame.

// putStreamFrame stores a frame newer than the stored one of a stream not
// ended. KEYS: stream, streams. ARGV: seq, frame, TTL (ms), req_id.
var putStreamFrame = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'seq', 'ended')
if cur[2] or (cur[1] and cur[1] >= ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'frame', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`)

// streamSeq is seq as putStreamFrame compares it.
func streamSeq(seq int64) string { return fmt.Sprintf("%019d", seq) }

// PutStreamFrame records frame, the snapshot numbered seq, as the newest of
// reqID's stream, marks the stream running and announces it to the holder.
// stored is false, and nothing is announced, when the stream already has a
// frame numbered seq or later, or has ended: a late write (a queue position
// racing the turn's first frame) never replaces a newer frame, even for a
// holder that takes over from Redis.
func (s *LongConn) PutStreamFrame(ctx context.Context, botID, reqID string, seq int64, frame []byte) (stored bool, err error) {
	if seq < 0 {
		return false, fmt.Errorf("store long-connection frame: negative seq %d", seq)
	}
	n, err := putStreamFrame.Run(ctx, s.client, []string{s.keys.LongConn(botID).Stream(reqID), s.keys.LongConn(botID).Streams()},
		streamSeq(seq), frame, LongConnStreamTTL.Milliseconds(), reqID).Int()
	if err != nil {
		return false, fmt.Errorf("store long-connection frame: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	if err := s.client.Publish(ctx, s.keys.LongConn(botID).FramesChannel(), reqID).Err(); err != nil {
		return true, fmt.Errorf("announce long-connection frame: %w", err)
	}
	return true, nil
}

// StreamFrame is the newest frame of reqID's stream (nil when none, or when
// the stream has ended).
func (s *LongConn) StreamFrame(ctx context.Context, botID, reqID string) ([]byte, error) {
	v, err := s.client.HMGet(ctx, s.keys.LongConn(botID).Stream(reqID), "frame", "ended").Result()
	if err != nil {
		return nil, fmt.Errorf("read long-connection frame: %w", err)
	}
	frame, _ := v[0].(string)
	if frame == "" || v[1] != nil {
		return nil, nil
	}
	return []byte(frame), nil
}

// RunningStreams is the newest frame of every stream not yet ended, by
// req_id, for a new holder to re-push.
func (s *LongConn) RunningStreams(ctx context.Context, botID string) (map[string][]byte, error) {
	ids, err := s.client.SMembers(ctx, s.keys.LongConn(botID).Streams()).Result()
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
			s.client.SRem(ctx, s.keys.LongConn(botID).Streams(), id) // its frame expired
			continue
		}
		out[id] = f
	}
	return out, nil
}

// endStream marks a stream ended, unless another token holds the lease. A
// missing lease vanished with Redis, as renewHolder reasons (its holder
// re-takes it at the next renewal), so it does not stop the holder.
// KEYS: holder, stream, streams. ARGV: token, req_id, TTL (ms).
var endStream = redis.NewScript(`
local t = redis.call('HGET', KEYS[1], 'token')
if t and t ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'ended', '1')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SREM', KEYS[3], ARGV[2])
return 1
`)

// EndStream records that reqID's stream is over, before its final frame is
// pushed, unless another token holds the lease (a deposed holder must not
// hide a stream from its successor, which pushes the final frame instead):
// from then on no holder pushes it again and no frame is stored for it.
func (s *LongConn) EndStream(ctx context.Context, botID, reqID string, token int64) (bool, error) {
	n, err := endStream.Run(ctx, s.client,
		[]string{s.keys.LongConn(botID).Holder(), s.keys.LongConn(botID).Stream(reqID), s.keys.LongConn(botID).Streams()},
		token, reqID, LongConnStreamTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("end long-connection stream: %w", err)
	}
	return n == 1, nil
}

// reopenStream undoes endStream for the same holder. KEYS: holder, stream,
// streams. ARGV: token, req_id, TTL (ms).
var reopenStream = redis.NewScript(`
local t = redis.call('HGET', KEYS[1], 'token')
if t and t ~= ARGV[1] then return 0 end
if redis.call('HDEL', KEYS[2], 'ended') == 0 then return 0 end
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
`)

// ReopenStream marks reqID's stream running again after EndStream, when the
// final frame it was ended for was never written (its holder stopped
// first), unless another token holds the lease; the next holder pushes it.
func (s *LongConn) ReopenStream(ctx context.Context, botID, reqID string, token int64) (bool, error) {
	n, err := reopenStream.Run(ctx, s.client,
		[]string{s.keys.LongConn(botID).Holder(), s.keys.LongConn(botID).Stream(reqID), s.keys.LongConn(botID).Streams()},
		token, reqID, LongConnStreamTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("reopen long-connection stream: %w", err)
	}
	return n == 1, nil
}

// WatchRelay calls onFrame with the req_id of every frame and onSend with
// the id of every send announced for bot, in announcement order, until ctx
// ends (nil). ready is called once the subscription is live.
func (s *LongConn) WatchRelay(ctx context.Context, botID string, ready func(), onFrame, onSend func(id string)) error {
	frames, sends := s.keys.LongConn(botID).FramesChannel(), s.keys.LongConn(botID).SendsChannel()
	return watch(ctx, s.conn, "the long-connection relay", ready, func(m *redis.Message) {
		if m.Channel == sends {
			onSend(m.Payload)
		} else {
			onFrame(m.Payload)
		}
	}, frames, sends)
}
