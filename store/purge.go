package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// PurgeConversation deletes everything the store holds of conv (wecodex
// purge): every key under its hash tag (its session record, queue, lease,
// approvals, grants, repeat marks, attachments' bytes, the rest of an
// answer) and its place in the conversation list, the pending set and the
// audit numbering. It returns how many keys it deleted.
func (s *Conversations) PurgeConversation(ctx context.Context, conv string) (int, error) {
	match := s.keys.Conv(conv).Match()
	var keys []string
	scan := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, match, 500).Iterator()
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		return iter.Err()
	}
	var err error
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
	} else {
		err = scan(ctx, s.client)
	}
	if err != nil {
		return 0, fmt.Errorf("find the keys of %s: %w", conv, err)
	}
	n := 0
	for _, k := range keys {
		d, err := s.client.Del(ctx, k).Result()
		if err != nil {
			return n, fmt.Errorf("delete %s: %w", k, err)
		}
		n += int(d)
	}
	if _, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, s.keys.Conversations(), conv)
		p.SRem(ctx, s.keys.Pending(), conv)
		p.HDel(ctx, s.keys.AuditSeq(), conv)
		return nil
	}); err != nil {
		return n, fmt.Errorf("unlist %s: %w", conv, err)
	}
	return n, nil
}

// globEscape quotes what SCAN's MATCH reads as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
