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

// FrameState is a stored frame's first byte: the state of its stream, as the
// channel that writes the frames defines them (the webhook: waiting, running,
// finished). The store compares it and never interprets it. It is an alias,
// so the channel's Store interface names the identical type without importing
// store; the scripts below read it as string.byte(frame, 1).
type FrameState = byte

// saveFrameIf replaces the frame only while it is absent or its state
// (first byte) is ARGV[2], so a late write of an earlier state cannot hide a
// newer one.
var saveFrameIf = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and string.byte(cur, 1) ~= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
`)

// SaveFrameIf stores frame only when the stream has no frame or its current
// frame is in state; it reports whether it stored.
func (s *Store) SaveFrameIf(ctx context.Context, streamID string, frame []byte, state FrameState) (bool, error) {
	n, err := saveFrameIf.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		frame, int(state), FrameTTL.Milliseconds()).Int()
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

// saveFrameUnless replaces the frame unless its state (first byte) is
// ARGV[2].
var saveFrameUnless = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and string.byte(cur, 1) == tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
`)

// SaveFrameUnless stores frame unless the stream's current frame is in state
// (one the stream must keep, such as finished); it reports whether it stored.
func (s *Store) SaveFrameUnless(ctx context.Context, streamID string, frame []byte, state FrameState) (bool, error) {
	n, err := saveFrameUnless.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		frame, int(state), FrameTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("save frame unless settled: %w", err)
	}
	return n == 1, nil
}
