package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// fieldFrameItems holds a finished webhook frame's pictures (the
// stream.msg_item JSON the channel made), written with the frame in one step
// so no refresh ever sees the frame without them.
const fieldFrameItems = "items"

// saveFrameItemsUnless is saveFrameUnless with the frame's pictures.
// KEYS: frame. ARGV: kept state, state, owner, user, content, items, TTL (ms).
var saveFrameItemsUnless = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'state') == ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'owner', ARGV[3], 'user', ARGV[4], 'content', ARGV[5], 'items', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
return 1
`)

// SaveFrameItemsUnless is SaveFrameUnless for a frame that shows pictures
// (items, the channel's msg_item JSON) with its content. TTL FrameTTL.
func (s *Webhook) SaveFrameItemsUnless(ctx context.Context, streamID, keep, state, owner, user, content, items string) (bool, error) {
	n, err := saveFrameItemsUnless.Run(ctx, s.client, []string{s.keys.Frame(streamID)},
		keep, state, owner, user, content, items, FrameTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("save frame with pictures unless settled: %w", err)
	}
	return n == 1, nil
}

// FrameItems returns the pictures stored with a stream's frame ("" when
// none).
func (s *Webhook) FrameItems(ctx context.Context, streamID string) (string, error) {
	v, err := s.client.HGet(ctx, s.keys.Frame(streamID), fieldFrameItems).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("load the pictures of a frame: %w", err)
	}
	return v, nil
}
