package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// A proactive send (an approval card by aibot_send_msg) may be made on any
// replica but only the holder can send it: it waits in the bot's sends hash
// until the holder takes it, once, and sends it.

// PutSend records send (an aibot_send_msg body) under id for the holder and
// announces it.
func (s *LongConn) PutSend(ctx context.Context, botID, id string, send []byte) error {
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, s.keys.LongConn(botID).Sends(), id, send)
		p.PExpire(ctx, s.keys.LongConn(botID).Sends(), LongConnStreamTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store long-connection send: %w", err)
	}
	if err := s.client.Publish(ctx, s.keys.LongConn(botID).SendsChannel(), id).Err(); err != nil {
		return fmt.Errorf("announce long-connection send: %w", err)
	}
	return nil
}

// claimSend takes a send for the holder of a token. KEYS: holder, sends.
// ARGV: token, id.
var claimSend = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return false end
local send = redis.call('HGET', KEYS[2], ARGV[2])
if not send then return false end
redis.call('HDEL', KEYS[2], ARGV[2])
return send
`)

// ClaimSend takes send id off the waiting sends, for the holder of token
// only: nil when it was taken already (by this holder or an earlier one) or
// token no longer holds the lease, which leaves it for the new holder.
func (s *LongConn) ClaimSend(ctx context.Context, botID, id string, token int64) ([]byte, error) {
	v, err := claimSend.Run(ctx, s.client, []string{s.keys.LongConn(botID).Holder(), s.keys.LongConn(botID).Sends()}, token, id).Text()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim long-connection send: %w", err)
	}
	return []byte(v), nil
}

// PendingSends is the ids of the sends no holder took yet, for a new holder.
func (s *LongConn) PendingSends(ctx context.Context, botID string) ([]string, error) {
	ids, err := s.client.HKeys(ctx, s.keys.LongConn(botID).Sends()).Result()
	if err != nil {
		return nil, fmt.Errorf("list long-connection sends: %w", err)
	}
	return ids, nil
}
