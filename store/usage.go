package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// usageField is the Session hash's field that holds a session's usage, so
// it goes with the conversation's other session state.
const usageField = "usage"

type sessionUsage struct {
	Session string           `json:"session"`
	Tokens  map[string]int64 `json:"tokens"`
}

// SaveSessionUsage records what conv's session used so far, by kind of
// token: the agent's running totals at the end of its last turn.
func (s *Conversations) SaveSessionUsage(ctx context.Context, conv, session string, tokens map[string]int64) error {
	b, err := json.Marshal(sessionUsage{Session: session, Tokens: tokens})
	if err != nil {
		return fmt.Errorf("encode session usage: %w", err)
	}
	key := s.keys.Conv(conv).Session()
	p := s.client.TxPipeline()
	p.HSet(ctx, key, usageField, b)
	p.Expire(ctx, key, ConversationTTL)
	if _, err := p.Exec(ctx); err != nil {
		return fmt.Errorf("record session usage of conversation: %w", err)
	}
	return nil
}

// SessionUsage is what SaveSessionUsage recorded last for conv, and the
// session it is of ("" when nothing was).
func (s *Conversations) SessionUsage(ctx context.Context, conv string) (string, map[string]int64, error) {
	b, err := s.client.HGet(ctx, s.keys.Conv(conv).Session(), usageField).Bytes()
	if errors.Is(err, redis.Nil) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read session usage of conversation: %w", err)
	}
	var u sessionUsage
	if err := json.Unmarshal(b, &u); err != nil {
		return "", nil, fmt.Errorf("decode session usage of conversation: %w", err)
	}
	return u.Session, u.Tokens, nil
}
