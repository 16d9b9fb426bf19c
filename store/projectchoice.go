package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// fieldProject of the Session hash is the project the conversation chose
// with /project ("" or missing: the one the configuration gives it).
const fieldProject = "project"

// ChooseProject records that conv works in project from now on and drops
// its session in the same step, so its next turn starts a fresh one there
// whichever replica takes it.
func (s *Conversations) ChooseProject(ctx context.Context, conv, project string) error {
	key := s.keys.Conv(conv).Session()
	if _, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, fieldProject, project)
		p.HDel(ctx, key, fieldSession)
		p.Expire(ctx, key, ConversationTTL)
		return nil
	}); err != nil {
		return fmt.Errorf("record project of conversation: %w", err)
	}
	return nil
}

// ChosenProject is the project conv chose with ChooseProject, "" when none.
func (s *Conversations) ChosenProject(ctx context.Context, conv string) (string, error) {
	v, err := s.client.HGet(ctx, s.keys.Conv(conv).Session(), fieldProject).Result()
	if err == redis.Nil {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read project of conversation: %w", err)
	}
	return v, nil
}
