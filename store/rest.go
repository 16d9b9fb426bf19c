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
func (s *Store) SaveRest(ctx context.Context, conv, title, answer string, from int) error {
	key := s.keys.Rest(conv)
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

// Rest is a long answer's unread end, as TakeRest returns it. Like
// TakenTurn it is an alias of a plain struct, so the webhook channel's Store
// interface names the identical type without importing store.
type Rest = struct {
	// Title is the question the answer is to.
	Title string
	// Answer is the whole answer text.
	Answer string
	// From is the byte offset of the unread part of Answer.
	From int
}

// TakeRest returns and forgets the conversation's saved rest; ok is false
// when there is none.
func (s *Store) TakeRest(ctx context.Context, conv string) (rest Rest, ok bool, err error) {
	v, err := takeRest.Run(ctx, s.client, []string{s.keys.Rest(conv)},
		fieldRestTitle, fieldRestAnswer, fieldRestFrom).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return Rest{}, false, fmt.Errorf("take rest of answer: %w", err)
	}
	if len(v) != 3 || v[1] == nil {
		return Rest{}, false, nil
	}
	rest.Title, _ = v[0].(string)
	rest.Answer, _ = v[1].(string)
	fromText, _ := v[2].(string)
	if rest.From, err = strconv.Atoi(fromText); err != nil || rest.From < 0 || rest.From > len(rest.Answer) {
		return Rest{}, false, fmt.Errorf("take rest of answer: bad offset %q", fromText)
	}
	return rest, true, nil
}
