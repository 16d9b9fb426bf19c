package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Fields of the Session hash that say when the conversation was last used
// and by whom.
const (
	fieldUsed = "used" // unix ms
	fieldUser = "user"
)

// ConversationRecord is what the store holds about one conversation, for
// listing them (`wecodex sessions`).
type ConversationRecord struct {
	// Key is the conversation's key (bot.Conversation.Key).
	Key string
	// Session is the agent session (Codex thread) id, "" after /new.
	Session string
	// Cwd is the directory its agent works in.
	Cwd string
	// Used is when its last turn started; User who sent that turn.
	Used time.Time
	User string
	// Fields is the whole record as stored, for what a caller knows how to
	// read beyond the fields above.
	Fields map[string]string
}

// TouchConversation records that a turn of conv, sent by user, started
// at, renewing the conversation's TTL (ConversationTTL), and lists conv
// among the conversations. The list spans conversations, so it is written
// apart from the conversation's own record (Cluster: another slot).
func (s *Conversations) TouchConversation(ctx context.Context, conv, user string, at time.Time) error {
	key := s.keys.Conv(conv).Session()
	ms := at.UnixMilli()
	if _, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, fieldUsed, ms, fieldUser, user)
		p.Expire(ctx, key, ConversationTTL)
		return nil
	}); err != nil {
		return fmt.Errorf("record last use of conversation: %w", err)
	}
	list := s.keys.Conversations()
	if _, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, list, redis.Z{Score: float64(ms), Member: conv})
		p.ZRemRangeByScore(ctx, list, "-inf", "("+strconv.FormatInt(at.Add(-ConversationTTL).UnixMilli(), 10))
		p.Expire(ctx, list, ConversationTTL)
		return nil
	}); err != nil {
		return fmt.Errorf("list conversation: %w", err)
	}
	return nil
}

// ListConversations returns the record of every listed conversation,
// most recently used first. A conversation whose record expired is left
// out.
func (s *Conversations) ListConversations(ctx context.Context) ([]ConversationRecord, error) {
	keys, err := s.client.ZRevRange(ctx, s.keys.Conversations(), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	out := make([]ConversationRecord, 0, len(keys))
	for _, conv := range keys {
		r, ok, err := s.ConversationRecord(ctx, conv)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// ConversationRecord returns what the store holds about conv; ok is false
// when it holds nothing.
func (s *Conversations) ConversationRecord(ctx context.Context, conv string) (r ConversationRecord, ok bool, err error) {
	fields, err := s.client.HGetAll(ctx, s.keys.Conv(conv).Session()).Result()
	if err != nil {
		return r, false, fmt.Errorf("read conversation %s: %w", conv, err)
	}
	if len(fields) == 0 {
		return r, false, nil
	}
	r = ConversationRecord{Key: conv, Session: fields[fieldSession], Cwd: fields[fieldCwd], User: fields[fieldUser], Fields: fields}
	if ms, err := strconv.ParseInt(fields[fieldUsed], 10, 64); err == nil {
		r.Used = time.UnixMilli(ms)
	}
	return r, true, nil
}
