package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// countTurn counts one turn unless max are counted, in one step, so
// replicas taking turns of one user at once never pass the limit together.
// KEYS: the hour's count. ARGV: max, TTL (ms). Returns 1 when counted.
var countTurn = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1
`)

func hourOf(now time.Time) time.Time { return now.UTC().Truncate(time.Hour) }

func dayOf(now time.Time) string { return now.UTC().Format("20060102") }

// TakeTurn counts one turn of user in the clock hour (UTC) of now unless max
// are counted already; reset is the end of that hour.
func (s *Limits) TakeTurn(ctx context.Context, user string, now time.Time, max int) (bool, time.Time, error) {
	hour := hourOf(now)
	key := s.keys.LimitTurns(user, hour.Unix())
	n, err := countTurn.Run(ctx, s.client, []string{key}, max, LimitTurnsTTL.Milliseconds()).Int()
	if err != nil {
		return false, time.Time{}, fmt.Errorf("count a turn of %s: %w", user, err)
	}
	return n == 1, hour.Add(time.Hour), nil
}

// returnTurn takes one off a count that is there and above zero: a turn
// given back just after the hour it was counted in turned finds no count,
// and a plain DECR would leave a count of -1 that never expires.
// KEYS: the hour's count.
var returnTurn = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return n
`)

// ReturnTurn gives back one turn counted in the hour of now.
func (s *Limits) ReturnTurn(ctx context.Context, user string, now time.Time) error {
	if err := returnTurn.Run(ctx, s.client, []string{s.keys.LimitTurns(user, hourOf(now).Unix())}).Err(); err != nil {
		return fmt.Errorf("give back a turn of %s: %w", user, err)
	}
	return nil
}

// TokensUsed is what user's turns used on the UTC day of now.
func (s *Limits) TokensUsed(ctx context.Context, user string, now time.Time) (int64, error) {
	n, err := s.client.Get(ctx, s.keys.LimitTokens(user, dayOf(now))).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read the tokens of %s: %w", user, err)
	}
	return n, nil
}

// AddTokens adds n to user's tokens on the UTC day of now.
func (s *Limits) AddTokens(ctx context.Context, user string, now time.Time, n int64) error {
	key := s.keys.LimitTokens(user, dayOf(now))
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.IncrBy(ctx, key, n)
		p.PExpire(ctx, key, LimitTokensTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("add the tokens of %s: %w", user, err)
	}
	return nil
}

// TurnsUsed is how many turns TakeTurn counted for user in the clock hour
// of now, and when that hour ends.
func (s *Limits) TurnsUsed(ctx context.Context, user string, now time.Time) (int, time.Time, error) {
	hour := hourOf(now)
	n, err := s.client.Get(ctx, s.keys.LimitTurns(user, hour.Unix())).Int()
	if errors.Is(err, redis.Nil) {
		return 0, hour.Add(time.Hour), nil
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("read the turns of %s: %w", user, err)
	}
	return n, hour.Add(time.Hour), nil
}
