package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// SaveFrame stores frame as the newest frame of a reply stream (TTL FrameTTL).
func (s *Store) SaveFrame(ctx context.Context, streamID string, frame []byte) error {
	if err := s.client.Set(ctx, s.keys.Frame(streamID), frame, FrameTTL).Err(); err != nil {
		return fmt.Errorf("save frame: %w", err)
	}
	return nil
}

// saveFrameIf replaces the frame only while it is absent or starts with the
// given prefix, so a late write of an earlier state cannot hide a newer one.
var saveFrameIf = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[2]) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
`)

// SaveFrameIf stores frame only when the stream has no frame or its current
// frame starts with prefix; it reports whether it stored.
func (s *Store) SaveFrameIf(ctx context.Context, streamID string, frame []byte, prefix string) (bool, error) {
	n, err := saveFrameIf.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		frame, prefix, FrameTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("save frame if unchanged: %w", err)
	}
	return n == 1, nil
}

// LoadFrame returns a stream's newest frame; ok is false when there is none.
func (s *Store) LoadFrame(ctx context.Context, streamID string) ([]byte, bool, error) {
	b, err := s.client.Get(ctx, s.keys.Frame(streamID)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("load frame: %w", err)
	}
	return b, true, nil
}

// saveFrameUnless replaces the frame unless it starts with the given prefix.
var saveFrameUnless = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[2]) == ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
`)

// SaveFrameUnless stores frame unless the stream's current frame starts with
// prefix (a state the stream must keep, such as finished); it reports whether
// it stored.
func (s *Store) SaveFrameUnless(ctx context.Context, streamID string, frame []byte, prefix string) (bool, error) {
	n, err := saveFrameUnless.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		frame, prefix, FrameTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("save frame unless settled: %w", err)
	}
	return n == 1, nil
}
