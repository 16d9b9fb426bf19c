package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Approval status values of the Approval hash.
const (
	approvalPending = "pending"
	approvalDecided = "decided"
)

// OpenApproval records a pending approval request of conv and returns its
// short id, the next of the counter every conversation shares (never
// reused), so the id alone names the request from any chat. An id taken by
// a call that then fails is only a gap.
func (s *Approvals) OpenApproval(ctx context.Context, conv string, request []byte) (int64, error) {
	id, err := s.client.Incr(ctx, s.keys.ApprovalSeq()).Result()
	if err != nil {
		return 0, fmt.Errorf("number approval request in %s: %w", conv, err)
	}
	// The owner and the global set first: they live in other hash slots
	// than the conversation's keys, and a request whose own hash never got
	// written is skipped wherever it is listed.
	_, err = s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.keys.ApprovalOwner(id), conv, ApprovalTTL)
		p.ZAdd(ctx, s.keys.ApprovalsPending(), redis.Z{Score: float64(id), Member: id})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("index approval request %d of %s: %w", id, conv, err)
	}
	key, set := s.keys.Conv(conv).Approval(id), s.keys.Conv(conv).Approvals()
	_, err = s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "request", request, "status", approvalPending)
		p.PExpire(ctx, key, ApprovalTTL)
		p.ZAdd(ctx, set, redis.Z{Score: float64(id), Member: id})
		p.PExpire(ctx, set, ApprovalTTL)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("open approval request %d in %s: %w", id, conv, err)
	}
	return id, nil
}

// ApprovalOwner returns the conversation of approval request id, "" when
// the id is unknown or expired.
func (s *Approvals) ApprovalOwner(ctx context.Context, id int64) (string, error) {
	conv, err := s.client.Get(ctx, s.keys.ApprovalOwner(id)).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up the conversation of approval %d: %w", id, err)
	}
	return conv, nil
}

// AllPendingApprovals returns every conversation's pending approvals, oldest
// first: the conversation, id and request of each.
func (s *Approvals) AllPendingApprovals(ctx context.Context) (convs []string, ids []int64, requests [][]byte, err error) {
	members, err := s.client.ZRange(ctx, s.keys.ApprovalsPending(), 0, -1).Result()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list pending approvals: %w", err)
	}
	for _, m := range members {
		id, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			continue
		}
		conv, err := s.ApprovalOwner(ctx, id)
		if err != nil {
			return nil, nil, nil, err
		}
		var v []any
		if conv != "" {
			if v, err = s.client.HMGet(ctx, s.keys.Conv(conv).Approval(id), "status", "request").Result(); err != nil {
				return nil, nil, nil, fmt.Errorf("read approval %d of %s: %w", id, conv, err)
			}
		}
		if st, _ := valueAt(v, 0).(string); st != approvalPending {
			// Decided (its removal below the decision failed) or expired.
			s.client.ZRem(ctx, s.keys.ApprovalsPending(), m)
			continue
		}
		req, _ := valueAt(v, 1).(string)
		convs, ids, requests = append(convs, conv), append(ids, id), append(requests, []byte(req))
	}
	return convs, ids, requests, nil
}

func valueAt(v []any, i int) any {
	if i < len(v) {
		return v[i]
	}
	return nil
}

// PendingApprovals returns the ids and requests of conv's pending approvals,
// oldest first.
func (s *Approvals) PendingApprovals(ctx context.Context, conv string) ([]int64, [][]byte, error) {
	members, err := s.client.ZRange(ctx, s.keys.Conv(conv).Approvals(), 0, -1).Result()
	if err != nil {
		return nil, nil, fmt.Errorf("list pending approvals of %s: %w", conv, err)
	}
	var ids []int64
	var reqs [][]byte
	for _, m := range members {
		id, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			continue
		}
		req, err := s.client.HGet(ctx, s.keys.Conv(conv).Approval(id), "request").Bytes()
		if errors.Is(err, redis.Nil) {
			continue // expired under the set: not pending any more
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read approval %d of %s: %w", id, conv, err)
		}
		ids = append(ids, id)
		reqs = append(reqs, req)
	}
	return ids, reqs, nil
}

// decideApproval records a decision once: only a pending request takes it,
// so a repeated or late decision changes nothing and gets the first one
// back. KEYS: approval, approvals. ARGV: decision, id, channel, conv.
var decideApproval = redis.NewScript(`
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'pending' then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return {0, redis.call('HGET', KEYS[1], 'decision'), redis.call('HGET', KEYS[1], 'request')}
end
redis.call('HSET', KEYS[1], 'status', 'decided', 'decision', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4] .. '\n' .. ARGV[2])
return {1, ARGV[1], redis.call('HGET', KEYS[1], 'request')}
`)

// DecideApproval records decision for request id of conv if it is still
// pending, and announces it on ApprovalChannel. decided says whether this
// call decided; current is the decision recorded (this one or the earlier
// one; nil when the request is unknown or expired), request the request.
func (s *Approvals) DecideApproval(ctx context.Context, conv string, id int64, decision []byte) (decided bool, current, request []byte, err error) {
	v, err := decideApproval.Run(ctx, s.client, []string{s.keys.Conv(conv).Approval(id), s.keys.Conv(conv).Approvals()},
		decision, id, s.keys.ApprovalChannel(), conv).Slice()
	if err != nil {
		return false, nil, nil, fmt.Errorf("decide approval %d of %s: %w", id, conv, err)
	}
	n, _ := v[0].(int64)
	// The global set lives in another hash slot; a member left behind is
	// dropped when /pending reads it.
	s.client.ZRem(ctx, s.keys.ApprovalsPending(), id)
	if d, ok := v[1].(string); ok {
		current = []byte(d)
	}
	if r, ok := v[2].(string); ok {
		request = []byte(r)
	}
	return n == 1, current, request, nil
}

// ApprovalDecision returns the decision recorded for request id of conv,
// nil while it is pending.
func (s *Approvals) ApprovalDecision(ctx context.Context, conv string, id int64) ([]byte, error) {
	v, err := s.client.HMGet(ctx, s.keys.Conv(conv).Approval(id), "status", "decision").Result()
	if err != nil {
		return nil, fmt.Errorf("read approval %d of %s: %w", id, conv, err)
	}
	if st, _ := v[0].(string); st != approvalDecided {
		return nil, nil
	}
	d, _ := v[1].(string)
	return []byte(d), nil
}

// WatchApprovals calls fn with the conversation and id of every decision
// announced, until ctx ends. ready is called once the subscription is live.
func (s *Approvals) WatchApprovals(ctx context.Context, ready func(), fn func(conv string, id int64)) error {
	return watch(ctx, s.conn, "approval decisions", ready, func(m *redis.Message) {
		conv, idText, _ := strings.Cut(m.Payload, "\n")
		if id, err := strconv.ParseInt(idText, 10, 64); err == nil {
			fn(conv, id)
		}
	}, s.keys.ApprovalChannel())
}
