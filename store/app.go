package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// The self-built app's shared state: the access token cache lent to
// silenceper/wechat (one value and one fetch for every replica), the per-user
// send reservations that keep every replica within WeCom's rate, and each
// reply's progress-card code.

// CachedValue returns the value cached under name (Cache), ok false when
// there is none.
func (s *App) CachedValue(ctx context.Context, name string) (string, bool, error) {
	v, err := s.client.Get(ctx, s.keys.App().Cache(name)).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read cached %s: %w", name, err)
	}
	return v, true, nil
}

// cacheValue stores the value and frees the fill claim in one step, so a
// replica waiting on the claim finds the value once the claim is gone.
// KEYS: value, fill. ARGV: value, TTL (ms).
var cacheValue = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[2])
return 1
`)

// CacheValue stores value under name for ttl and ends any fill of it.
func (s *App) CacheValue(ctx context.Context, name, value string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("cache %s: TTL %s is not positive", name, ttl)
	}
	keys := []string{s.keys.App().Cache(name), s.keys.App().CacheFill(name)}
	if err := cacheValue.Run(ctx, s.client, keys, value, ttl.Milliseconds()).Err(); err != nil {
		return fmt.Errorf("cache %s: %w", name, err)
	}
	return nil
}

// dropValue deletes the value only while it is still ARGV[1] ("" for any),
// so a replica dropping the token WeCom refused cannot drop the fresh one
// another replica has just fetched. KEYS: value. ARGV: value.
var dropValue = redis.NewScript(`
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`)

// DropCachedValue deletes the value cached under name if it is still value
// (any value when value is ""); dropped says whether it did.
func (s *App) DropCachedValue(ctx context.Context, name, value string) (bool, error) {
	n, err := dropValue.Run(ctx, s.client, []string{s.keys.App().Cache(name)}, value).Int()
	if err != nil {
		return false, fmt.Errorf("drop cached %s: %w", name, err)
	}
	return n == 1, nil
}

// ClaimCacheFill makes owner the one replica fetching name's value, for at
// most ttl; false when another replica fetches it now.
func (s *App) ClaimCacheFill(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	ok, err := s.client.SetNX(ctx, s.keys.App().CacheFill(name), owner, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("claim the fetch of %s: %w", name, err)
	}
	return ok, nil
}

// releaseFill frees a fill claim only its owner holds. KEYS: fill. ARGV: owner.
var releaseFill = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`)

// ReleaseCacheFill frees owner's claim on fetching name's value (a fetch
// that failed), so another replica may try at once.
func (s *App) ReleaseCacheFill(ctx context.Context, name, owner string) error {
	if err := releaseFill.Run(ctx, s.client, []string{s.keys.App().CacheFill(name)}, owner).Err(); err != nil {
		return fmt.Errorf("release the fetch of %s: %w", name, err)
	}
	return nil
}

// reserveSend reserves the earliest send time at or after now that keeps
// every minute within perMinute sends and every hour within perHour, and no
// earlier than the last reservation (sends keep their order). Each window
// is widened by margin, for the clocks of WeCom and the replicas. KEYS:
// sends, seq. ARGV: now (ms), perMinute, perHour, margin (ms), TTL (ms).
var reserveSend = redis.NewScript(`
local now = tonumber(ARGV[1])
local margin = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000 - margin)
local at = now
local n = redis.call('ZCARD', KEYS[1])
if n > 0 then
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  at = math.max(at, tonumber(last[2]))
end
local function window(limit, span)
  if n >= limit then
    local e = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
    at = math.max(at, tonumber(e[2]) + span + margin)
  end
end
window(tonumber(ARGV[2]), 60000)
window(tonumber(ARGV[3]), 3600000)
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], at, at .. ':' .. seq)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return at
`)

// ReserveSend reserves a message/send of the app agentID to user: it
// returns when to send, now or later, so that every replica together keeps
// within perMinute sends a minute and perHour an hour, each window widened
// by margin for clock differences. A reservation is never given back: a
// send that failed still counts, which errs on the side of WeCom's silent
// drops.
func (s *App) ReserveSend(ctx context.Context, agentID, user string, now time.Time, perMinute, perHour int, margin time.Duration) (time.Time, error) {
	if perMinute <= 0 || perHour <= 0 {
		return time.Time{}, fmt.Errorf("reserve a send to %s: limits %d/min, %d/h must be positive", user, perMinute, perHour)
	}
	keys := []string{s.keys.App().Pace(agentID, user), s.keys.App().PaceSeq(agentID, user)}
	ms, err := reserveSend.Run(ctx, s.client, keys, now.UnixMilli(), perMinute, perHour,
		margin.Milliseconds(), AppPaceTTL.Milliseconds()).Int64()
	if err != nil {
		return time.Time{}, fmt.Errorf("reserve a send to %s: %w", user, err)
	}
	return time.UnixMilli(ms), nil
}

// SaveCardCode records the response_code of a reply stream's progress card.
func (s *App) SaveCardCode(ctx context.Context, streamID, code string) error {
	if err := s.client.Set(ctx, s.keys.App().Card(streamID), code, AppCardTTL).Err(); err != nil {
		return fmt.Errorf("save the card code of %s: %w", streamID, err)
	}
	return nil
}

// TakeCardCode returns the stream's card code and deletes it, since WeCom
// accepts it once; "" when there is none (never sent, or taken).
func (s *App) TakeCardCode(ctx context.Context, streamID string) (string, error) {
	v, err := s.client.GetDel(ctx, s.keys.App().Card(streamID)).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("take the card code of %s: %w", streamID, err)
	}
	return v, nil
}

// ClaimFinish marks the stream's end as sent; false when it was already.
func (s *App) ClaimFinish(ctx context.Context, streamID string) (bool, error) {
	ok, err := s.client.SetNX(ctx, s.keys.App().Finished(streamID), 1, AppCardTTL).Result()
	if err != nil {
		return false, fmt.Errorf("claim the end of %s: %w", streamID, err)
	}
	return ok, nil
}

// CardOpen reports whether the stream's progress card still waits for its
// update: the turn has not ended.
func (s *App) CardOpen(ctx context.Context, streamID string) (bool, error) {
	n, err := s.client.Exists(ctx, s.keys.App().Card(streamID)).Result()
	if err != nil {
		return false, fmt.Errorf("look up the card of %s: %w", streamID, err)
	}
	return n == 1, nil
}
