package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Fields of the Session hash.
const (
	fieldSession = "session"
	fieldCwd     = "cwd"
)

// Conversation returns the conversation's recorded ACP session id and cwd
// ("" when none).
func (s *Conversations) Conversation(ctx context.Context, conv string) (sessionID, cwd string, err error) {
	v, err := s.client.HMGet(ctx, s.keys.Conv(conv).Session(), fieldSession, fieldCwd).Result()
	if err != nil {
		return "", "", fmt.Errorf("read conversation: %w", err)
	}
	sessionID, _ = v[0].(string)
	cwd, _ = v[1].(string)
	return sessionID, cwd, nil
}

// SaveConversation records the conversation's session id and cwd, renewing
// its TTL (ConversationTTL).
func (s *Conversations) SaveConversation(ctx context.Context, conv, sessionID, cwd string) error {
	key := s.keys.Conv(conv).Session()
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, fieldSession, sessionID, fieldCwd, cwd)
		p.Expire(ctx, key, ConversationTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("record conversation: %w", err)
	}
	return nil
}

// ForgetSession drops the conversation's session id (/new), keeping its cwd.
func (s *Conversations) ForgetSession(ctx context.Context, conv string) error {
	if err := s.client.HDel(ctx, s.keys.Conv(conv).Session(), fieldSession).Err(); err != nil {
		return fmt.Errorf("forget session: %w", err)
	}
	return nil
}
