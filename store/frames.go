package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// A webhook frame is the hash Keys.Frame: its stream's state, as the
// webhook channel names them (waiting, running, finished), who may read it
// (the conversation, and in a 1:1 chat its user: owner and user), and the
// content. The store compares states and never interprets them.
const (
	fieldFrameState   = "state"
	fieldFrameOwner   = "owner"
	fieldFrameUser    = "user"
	fieldFrameContent = "content"
)

// saveFrameIf replaces the frame only while it is absent or its state is
// ARGV[1] ("" matches no stored frame), so a late write of an earlier
// state cannot hide a newer one. KEYS: frame. ARGV: if state, state,
// owner, user, content, TTL (ms).
var saveFrameIf = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'state')
if cur and cur ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'owner', ARGV[3], 'user', ARGV[4], 'content', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`)

// SaveFrameIf stores the frame {state, owner, user, content} of a stream
// only when the stream has no frame or its frame is in state ifState ("":
// only when it has none); it reports whether it stored. TTL FrameTTL.
func (s *Webhook) SaveFrameIf(ctx context.Context, streamID, ifState, state, owner, user, content string) (bool, error) {
	n, err := saveFrameIf.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		ifState, state, owner, user, content, FrameTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("save frame if unchanged: %w", err)
	}
	return n == 1, nil
}

// saveFrameUnless replaces the frame unless its state is ARGV[1].
// KEYS: frame. ARGV: kept state, state, owner, user, content, TTL (ms).
var saveFrameUnless = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'state') == ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'owner', ARGV[3], 'user', ARGV[4], 'content', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`)

// SaveFrameUnless stores the frame {state, owner, user, content} of a
// stream unless its current frame is in state keep (one the stream must
// keep, such as finished); it reports whether it stored. TTL FrameTTL.
func (s *Webhook) SaveFrameUnless(ctx context.Context, streamID, keep, state, owner, user, content string) (bool, error) {
	n, err := saveFrameUnless.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		keep, state, owner, user, content, FrameTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("save frame unless settled: %w", err)
	}
	return n == 1, nil
}

// LoadFrame returns a stream's newest frame; ok is false when there is
// none.
func (s *Webhook) LoadFrame(ctx context.Context, streamID string) (state, owner, user, content string, ok bool, err error) {
	v, err := s.client.HMGet(ctx, s.keys.Frame(streamID), fieldFrameState, fieldFrameOwner, fieldFrameUser, fieldFrameContent).Result()
	if err != nil {
		return "", "", "", "", false, fmt.Errorf("load frame: %w", err)
	}
	state, ok = v[0].(string)
	if !ok {
		return "", "", "", "", false, nil
	}
	owner, _ = v[1].(string)
	user, _ = v[2].(string)
	content, _ = v[3].(string)
	return state, owner, user, content, true, nil
}

// LoadFrameAndLegacy is LoadFrame and LegacyFrame in one pipeline: a
// refresh, and a repeated callback, costs one round trip (the two keys are
// of different slots; on a Cluster they go to their nodes side by side).
func (s *Webhook) LoadFrameAndLegacy(ctx context.Context, streamID string) (
	state, owner, user, content string, ok bool, legacy []byte, legacyOK bool, err error,
) {
	var hm *redis.SliceCmd
	var old *redis.StringCmd
	_, _ = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		hm = p.HMGet(ctx, s.keys.Frame(streamID), fieldFrameState, fieldFrameOwner, fieldFrameUser, fieldFrameContent)
		old = p.Get(ctx, s.keys.LegacyFrame(streamID))
		return nil
	})
	if err := hm.Err(); err != nil {
		return "", "", "", "", false, nil, false, fmt.Errorf("load frame: %w", err)
	}
	if err := old.Err(); err != nil && !errors.Is(err, redis.Nil) {
		return "", "", "", "", false, nil, false, fmt.Errorf("load frame of the previous release: %w", err)
	}
	v := hm.Val()
	if state, ok = v[0].(string); ok {
		owner, _ = v[1].(string)
		user, _ = v[2].(string)
		content, _ = v[3].(string)
	}
	if b, err := old.Bytes(); err == nil {
		legacy, legacyOK = b, true
	}
	return state, owner, user, content, ok, legacy, legacyOK, nil
}

// LegacyFrame returns the frame a replica of the release before this one
// wrote for a stream (Keys.LegacyFrame), as it wrote it; ok is false when
// there is none. It is read only while a rolling deploy runs both releases.
func (s *Webhook) LegacyFrame(ctx context.Context, streamID string) ([]byte, bool, error) {
	b, err := s.client.Get(ctx, s.keys.LegacyFrame(streamID)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("load frame of the previous release: %w", err)
	}
	return b, true, nil
}
