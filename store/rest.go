package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Fields of the Rest hash.
const (
	fieldRestTitle  = "title"
	fieldRestAnswer = "answer"
	fieldRestFrom   = "from"
)

// SaveRest keeps the answer to title, unread from byte offset from, for the
// conversation's /more (TTL RestTTL). It replaces any earlier rest.
func (s *Webhook) SaveRest(ctx context.Context, conv, title, answer string, from int) error {
	key := s.keys.Conv(conv).Rest()
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		p.HSet(ctx, key, fieldRestTitle, title, fieldRestAnswer, answer, fieldRestFrom, from)
		p.Expire(ctx, key, RestTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("save rest of answer: %w", err)
	}
	return nil
}

// takeRest reads and deletes the rest in one step, so two /more at once never
// show the same part twice.
var takeRest = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], ARGV[1], ARGV[2], ARGV[3])
redis.call('DEL', KEYS[1])
return v
`)

// TakeRest returns and forgets the conversation's saved rest: the question
// the answer is to, the whole answer, and the byte offset of its unread
// part; ok is false when there is none.
func (s *Webhook) TakeRest(ctx context.Context, conv string) (title, answer string, from int, ok bool, err error) {
	v, err := takeRest.Run(ctx, s.client, []string{s.keys.Conv(conv).Rest()},
		fieldRestTitle, fieldRestAnswer, fieldRestFrom).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", "", 0, false, fmt.Errorf("take rest of answer: %w", err)
	}
	if len(v) != 3 || v[1] == nil {
		return "", "", 0, false, nil
	}
	title, _ = v[0].(string)
	answer, _ = v[1].(string)
	fromText, _ := v[2].(string)
	if from, err = strconv.Atoi(fromText); err != nil || from < 0 || from > len(answer) {
		return "", "", 0, false, fmt.Errorf("take rest of answer: bad offset %q", fromText)
	}
	return title, answer, from, true, nil
}
