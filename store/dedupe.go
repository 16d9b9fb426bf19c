package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// ClaimMessage records msgID → streamID with SET NX unless user's msgID was
// seen in conv within DedupeTTL. It returns the stream id recorded and
// whether this call recorded it, so a repeated callback is answered with the
// stream its first delivery started.
func (s *Store) ClaimMessage(ctx context.Context, conv, user, msgID, streamID string) (string, bool, error) {
	key := s.keys.Dedupe(conv, user, msgID)
	// SET NX GET does both steps in one round trip (Redis ≥ 7).
	prev, err := s.client.SetArgs(ctx, key, streamID, redis.SetArgs{Mode: "NX", Get: true, TTL: DedupeTTL}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return streamID, true, nil
	case err != nil:
		return "", false, fmt.Errorf("dedupe msgid: %w", err)
	}
	return prev, false, nil
}
