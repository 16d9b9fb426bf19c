package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// addSteer appends a message for the running turn, when a turn holds the
// lease.
// KEYS: lease, steers. ARGV: item, TTL (ms).
var addSteer = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`)

// takeSteers pops every waiting steer at once.
// KEYS: steers.
var takeSteers = redis.NewScript(`
local items = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return items
`)

// Steer hands item to the turn holding the conversation's lease, to be
// added to it: the holder takes it when the announcement reaches it
// (WatchSteers, then TakeSteers). running is false, and nothing is kept,
// when no turn holds the lease.
func (s *Queue) Steer(ctx context.Context, conv string, item []byte) (bool, error) {
	k := s.keys.Conv(conv)
	n, err := addSteer.Run(ctx, s.client, []string{k.Lease(), k.Steers()}, item, LeaseTTL.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("steer the running turn: %w", err)
	}
	if n == 0 {
		return false, nil
	}
	if err := s.client.Publish(ctx, s.keys.SteerChannel(), conv).Err(); err != nil {
		return true, fmt.Errorf("announce steer: %w", err)
	}
	return true, nil
}

// TakeSteers returns and forgets the messages waiting for conv's running
// turn, oldest first.
func (s *Queue) TakeSteers(ctx context.Context, conv string) ([][]byte, error) {
	v, err := takeSteers.Run(ctx, s.client, []string{s.keys.Conv(conv).Steers()}).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("take steers: %w", err)
	}
	out := make([][]byte, len(v))
	for i, it := range v {
		out[i] = []byte(it)
	}
	return out, nil
}

// WatchSteers calls fn with the conversation of every steer announced,
// until ctx ends (then it returns nil). ready is called once the
// subscription is live.
func (s *Queue) WatchSteers(ctx context.Context, ready func(), fn func(conv string)) error {
	return watch(ctx, s.conn, "steers", ready, func(m *redis.Message) { fn(m.Payload) }, s.keys.SteerChannel())
}
