package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Schedules claims schedule slots across replicas, keeps each schedule's
// newest run, the schedules made from the chat, and the trigger signatures
// already accepted (schedule.Claims, schedule.ChatStore, schedule.Replays).
type Schedules struct{ conn }

// NewSchedules is db's schedule slots and chat schedules.
func NewSchedules(db *DB) *Schedules { return &Schedules{db.conn} }

// claimSlot claims one slot and, when it won, raises the schedule's last
// run to it, in one step: a replica that dies between the two cannot leave
// a claimed slot the catch-up would run again.
// KEYS: slot, last. ARGV: replica, TTL (ms), slot (unix s). Returns 1 when
// this call claimed it.
var claimSlot = redis.NewScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[3]) > last then redis.call('SET', KEYS[2], ARGV[3]) end
return 1
`)

// ClaimSlot claims schedule id's slot at (unix seconds) for replica, once
// across every replica: true for the one call that claimed it.
func (s *Schedules) ClaimSlot(ctx context.Context, id string, at int64, replica string) (bool, error) {
	k := s.keys.Schedule(id)
	n, err := claimSlot.Run(ctx, s.client, []string{k.Slot(at), k.Last()}, replica, ScheduleSlotTTL.Milliseconds(), at).Int()
	if err != nil {
		return false, fmt.Errorf("claim slot %d of schedule %s: %w", at, id, err)
	}
	return n == 1, nil
}

// LastSlot is the unix second of schedule id's newest claimed slot; 0 when
// none was ever claimed.
func (s *Schedules) LastSlot(ctx context.Context, id string) (int64, error) {
	v, err := s.client.Get(ctx, s.keys.Schedule(id).Last()).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("read the last slot of schedule %s: %w", id, err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read the last slot of schedule %s: %q is not a unix time", id, v)
	}
	return n, nil
}

// SeenSignature records a trigger's signature: true the first time it is
// seen within TriggerSeenTTL.
func (s *Schedules) SeenSignature(ctx context.Context, name, signature string) (first bool, err error) {
	ok, err := s.client.SetNX(ctx, s.keys.TriggerSeen(name, signature), 1, TriggerSeenTTL).Result()
	if err != nil {
		return false, fmt.Errorf("record the signature of trigger %s: %w", name, err)
	}
	return ok, nil
}

// NewChatScheduleID numbers a schedule made from the chat; never reused.
func (s *Schedules) NewChatScheduleID(ctx context.Context) (int64, error) {
	n, err := s.client.Incr(ctx, s.keys.ChatScheduleSeq()).Result()
	if err != nil {
		return 0, fmt.Errorf("number a chat schedule: %w", err)
	}
	return n, nil
}

// PutChatSchedule stores chat schedule id (its JSON).
func (s *Schedules) PutChatSchedule(ctx context.Context, id string, data []byte) error {
	if err := s.client.HSet(ctx, s.keys.ChatSchedules(), id, data).Err(); err != nil {
		return fmt.Errorf("store chat schedule %s: %w", id, err)
	}
	return nil
}

// ChatSchedules returns every chat schedule's JSON by id.
func (s *Schedules) ChatSchedules(ctx context.Context) (map[string][]byte, error) {
	m, err := s.client.HGetAll(ctx, s.keys.ChatSchedules()).Result()
	if err != nil {
		return nil, fmt.Errorf("read chat schedules: %w", err)
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out, nil
}

// DeleteChatSchedule removes chat schedule id and its last-slot record.
func (s *Schedules) DeleteChatSchedule(ctx context.Context, id string) error {
	if err := s.client.HDel(ctx, s.keys.ChatSchedules(), id).Err(); err != nil {
		return fmt.Errorf("remove chat schedule %s: %w", id, err)
	}
	if err := s.client.Del(ctx, s.keys.Schedule(id).Last()).Err(); err != nil {
		return fmt.Errorf("remove chat schedule %s: %w", id, err)
	}
	return nil
}
