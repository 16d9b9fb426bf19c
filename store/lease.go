package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The lease is a hash {token, replica}. token comes from the conversation's
// fencing counter, so every acquisition has a larger token than any before
// it: a holder whose lease expired presents an old token and every script
// below refuses it.
const (
	fieldToken   = "token"
	fieldReplica = "replica"
)

// takeTurn acquires a free lease and pops the oldest waiting item, recording
// it as running. A running record found while the lease is free was left by
// a holder that died mid-turn: it is handed back once (also when the queue
// is empty and no lease is taken) so the caller can finish that turn's card.
// KEYS: lease, queue, fence, owner, stop, running. ARGV: replica, lease TTL
// (ms), fence TTL (ms), owner TTL (ms), running TTL (ms).
var takeTurn = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, false, redis.call('LLEN', KEYS[2]), false} end
local orphan = redis.call('GET', KEYS[6])
redis.call('DEL', KEYS[6])
local item = redis.call('LPOP', KEYS[2])
if not item then return {0, false, 0, orphan} end
local token = redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[1], 'token', token, 'replica', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[4])
redis.call('SET', KEYS[6], item, 'PX', ARGV[5])
redis.call('DEL', KEYS[5])
return {token, item, redis.call('LLEN', KEYS[2]), orphan}
`)

// TakeTurn acquires the conversation's free lease for replica and pops the
// oldest waiting item in one step, recording replica as the owner and the
// item as running. token is the lease's fencing token, 0 when the lease is
// held or the queue is empty; item is the popped item (nil when token is
// 0); queued is the queue length after the call. orphan is the item a
// previous holder was running when its lease lapsed without a release (it
// died mid-turn), returned to one caller only, even when no lease is taken.
func (s *Queue) TakeTurn(ctx context.Context, conv, replica string, ttl time.Duration) (token int64, item []byte, queued int, orphan []byte, err error) {
	k := s.keys.Conv(conv)
	v, err := takeTurn.Run(ctx, s.client,
		[]string{k.Lease(), k.Queue(), k.Fence(), k.Owner(), k.Stop(), k.Running()},
		replica, ttl.Milliseconds(), FenceTTL.Milliseconds(), ConversationTTL.Milliseconds(), RunningTTL.Milliseconds()).Slice()
	if err != nil {
		return 0, nil, 0, nil, fmt.Errorf("take turn: %w", err)
	}
	token, _ = v[0].(int64)
	if it, ok := v[1].(string); ok {
		item = []byte(it)
	}
	n, _ := v[2].(int64)
	if len(v) > 3 {
		if o, ok := v[3].(string); ok {
			orphan = []byte(o)
		}
	}
	return token, item, int(n), orphan, nil
}

// nextTurn pops the next item for the token's holder and records it as
// running, or releases the lease (and the running record) when the queue is
// empty. A stop request belonged to the turn that just ended, so it is
// cleared either way.
// KEYS: lease, queue, stop, running. ARGV: token, lease TTL (ms), running
// TTL (ms).
var nextTurn = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return {0, false} end
redis.call('DEL', KEYS[3])
local item = redis.call('LPOP', KEYS[2])
if not item then
  redis.call('DEL', KEYS[1], KEYS[4])
  return {1, false}
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[4], item, 'PX', ARGV[3])
return {1, item}
`)

// NextTurn pops the next waiting item for the holder of token, records it as
// running and renews the lease, or releases the lease when the queue is empty
// (item nil). held is false, and nothing changes, when token no longer holds
// the lease.
func (s *Queue) NextTurn(ctx context.Context, conv string, token int64, ttl time.Duration) (item []byte, held bool, err error) {
	v, err := nextTurn.Run(ctx, s.client,
		[]string{s.keys.Conv(conv).Lease(), s.keys.Conv(conv).Queue(), s.keys.Conv(conv).Stop(), s.keys.Conv(conv).Running()},
		token, ttl.Milliseconds(), RunningTTL.Milliseconds()).Slice()
	if err != nil {
		return nil, false, fmt.Errorf("take next turn: %w", err)
	}
	if it, ok := v[1].(string); ok {
		item = []byte(it)
	}
	return item, v[0] == int64(1), nil
}

// renewLease extends the lease held with a token and says whether /stop
// asked that turn to end.
// The running record is renewed with it, so it outlives the lease only when
// the holder stops renewing.
// KEYS: lease, stop, running. ARGV: token, lease TTL (ms), running TTL (ms).
var renewLease = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return {0, 0} end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[1] then return {1, 1} end
return {1, 0}
`)

// RenewLease extends the lease held with token. held is false when the token
// no longer holds it (it expired and another replica may have taken it);
// stop is true when RequestStop was called for this holder.
func (s *Queue) RenewLease(ctx context.Context, conv string, token int64, ttl time.Duration) (held, stop bool, err error) {
	v, err := renewLease.Run(ctx, s.client, []string{s.keys.Conv(conv).Lease(), s.keys.Conv(conv).Stop(), s.keys.Conv(conv).Running()},
		token, ttl.Milliseconds(), RunningTTL.Milliseconds()).Int64Slice()
	if err != nil {
		return false, false, fmt.Errorf("renew lease: %w", err)
	}
	return v[0] == 1, v[1] == 1, nil
}

// releaseLease frees the lease, and forgets its running turn, if the token
// still holds it.
// KEYS: lease, stop, running. ARGV: token.
var releaseLease = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
`)

// ReleaseLease frees the lease if token still holds it; the holder's turn is
// over, so nothing is recorded running any more.
func (s *Queue) ReleaseLease(ctx context.Context, conv string, token int64) (bool, error) {
	n, err := releaseLease.Run(ctx, s.client, []string{s.keys.Conv(conv).Lease(), s.keys.Conv(conv).Stop(), s.keys.Conv(conv).Running()}, token).Int()
	if err != nil {
		return false, fmt.Errorf("release lease: %w", err)
	}
	return n == 1, nil
}

// Lease returns the replica and token holding the conversation's lease; token
// is 0 when it is free.
func (s *Queue) Lease(ctx context.Context, conv string) (replica string, token int64, err error) {
	v, err := s.client.HMGet(ctx, s.keys.Conv(conv).Lease(), fieldReplica, fieldToken).Result()
	if err != nil {
		return "", 0, fmt.Errorf("read lease: %w", err)
	}
	replica, _ = v[0].(string)
	if t, ok := v[1].(string); ok {
		if token, err = strconv.ParseInt(t, 10, 64); err != nil {
			return "", 0, fmt.Errorf("read lease: bad token %q: %w", t, err)
		}
	}
	return replica, token, nil
}

// requestStop records a stop for the current holder's token.
// KEYS: lease, stop. ARGV: stop TTL (ms).
var requestStop = redis.NewScript(`
local t = redis.call('HGET', KEYS[1], 'token')
if not t then return 0 end
redis.call('SET', KEYS[2], t, 'PX', ARGV[1])
return 1
`)

// RequestStop asks the turn holding the conversation's lease to stop: the
// holder sees it on its next RenewLease, and at once through WatchStops.
// running is false when no turn holds the lease.
func (s *Queue) RequestStop(ctx context.Context, conv string) (bool, error) {
	n, err := requestStop.Run(ctx, s.client, []string{s.keys.Conv(conv).Lease(), s.keys.Conv(conv).Stop()},
		LeaseTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("request stop: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	if err := s.client.Publish(ctx, s.keys.StopChannel(), conv).Err(); err != nil {
		return true, fmt.Errorf("announce stop: %w", err)
	}
	return true, nil
}

// WatchStops calls fn with the conversation of every stop announced, until
// ctx ends (then it returns nil). ready is called once the subscription is
// live. fn runs on the caller's goroutine and should not block for long.
func (s *Queue) WatchStops(ctx context.Context, ready func(), fn func(conv string)) error {
	return watch(ctx, s.conn, "stop requests", ready, func(m *redis.Message) { fn(m.Payload) }, s.keys.StopChannel())
}

// claimLease takes the free lease without popping the queue, for work on
// the conversation that is no turn (discarding its worktree) and must not
// overlap one. A running record with the lease free is a dead holder's
// turn, still to be handed over by takeTurn: claiming then would release
// it unseen, so the claim is refused as if a turn ran.
// KEYS: lease, fence, running. ARGV: replica, lease TTL (ms), fence TTL (ms).
var claimLease = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'token', token, 'replica', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return token
`)

// ClaimLease takes the conversation's free lease for replica without
// taking a turn: while it holds, no turn starts (TakeTurn finds the lease
// held, and the waiting messages stay queued for after ReleaseLease).
// token is 0 when a turn holds the lease or is recorded running.
func (s *Queue) ClaimLease(ctx context.Context, conv, replica string, ttl time.Duration) (int64, error) {
	k := s.keys.Conv(conv)
	token, err := claimLease.Run(ctx, s.client, []string{k.Lease(), k.Fence(), k.Running()},
		replica, ttl.Milliseconds(), FenceTTL.Milliseconds()).Int64()
	if err != nil {
		return 0, fmt.Errorf("claim lease: %w", err)
	}
	return token, nil
}
