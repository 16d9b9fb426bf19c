package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// ForgetThreads drops ids from the threads conv used, with their records:
// retention deleted them, so /sessions must not offer them again.
func (s *Threads) ForgetThreads(ctx context.Context, conv string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	k := s.keys.Conv(conv)
	members := make([]any, len(ids))
	for i, id := range ids {
		members[i] = id
	}
	// One hash tag: a transaction even on a Cluster.
	if _, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, k.Threads(), members...)
		p.HDel(ctx, k.ThreadRecords(), ids...)
		return nil
	}); err != nil {
		return fmt.Errorf("forget threads of conversation %s: %w", conv, err)
	}
	return nil
}
