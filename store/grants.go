package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// AddGrant records grant (what an approver's /approve always lets conv's
// agent do again without asking) for every replica to honour.
func (s *Approvals) AddGrant(ctx context.Context, conv string, grant []byte) error {
	key := s.keys.Conv(conv).Grants()
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, key, grant)
		p.PExpire(ctx, key, ConversationTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("record an /approve always of %s: %w", conv, err)
	}
	return nil
}

// Grants returns every grant recorded for conv, in no order.
func (s *Approvals) Grants(ctx context.Context, conv string) ([][]byte, error) {
	v, err := s.client.SMembers(ctx, s.keys.Conv(conv).Grants()).Result()
	if err != nil {
		return nil, fmt.Errorf("read the /approve always grants of %s: %w", conv, err)
	}
	out := make([][]byte, len(v))
	for i, g := range v {
		out[i] = []byte(g)
	}
	return out, nil
}
