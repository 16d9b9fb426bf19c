package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// auditField is the one field of an audit stream entry.
const auditField = "r"

// NextAuditSeq is conv's next audit sequence number (1 first), shared by
// every replica.
func (s *Audit) NextAuditSeq(ctx context.Context, conv string) (int64, error) {
	n, err := s.client.HIncrBy(ctx, s.keys.AuditSeq(), conv, 1).Result()
	if err != nil {
		return 0, fmt.Errorf("number audit record of %s: %w", conv, err)
	}
	return n, nil
}

// AppendAudit adds record to the stream, which keeps about maxLen entries
// (0: no cap; "about": Redis trims whole nodes, which is cheap).
func (s *Audit) AppendAudit(ctx context.Context, record []byte, maxLen int64) error {
	a := &redis.XAddArgs{Stream: s.keys.AuditStream(), Values: []any{auditField, record}}
	if maxLen > 0 {
		a.MaxLen, a.Approx = maxLen, true
	}
	if err := s.client.XAdd(ctx, a).Err(); err != nil {
		return fmt.Errorf("append audit record: %w", err)
	}
	return nil
}

// TrimAudit drops the records added before before (retention.audit); it
// returns how many.
func (s *Audit) TrimAudit(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.client.XTrimMinID(ctx, s.keys.AuditStream(), strconv.FormatInt(before.UnixMilli(), 10)).Result()
	if err != nil {
		return 0, fmt.Errorf("trim audit stream: %w", err)
	}
	return n, nil
}

// AuditEntry is one record of the stream and its entry id.
type AuditEntry struct {
	ID     string
	Record []byte
}

// auditPage is how many entries one XRANGE reads.
const auditPage = 1000

// ReadAudit calls fn with every record added since since, oldest first.
func (s *Audit) ReadAudit(ctx context.Context, since time.Time, fn func(AuditEntry) error) error {
	start := "-"
	if !since.IsZero() {
		start = strconv.FormatInt(since.UnixMilli(), 10)
	}
	for {
		msgs, err := s.client.XRangeN(ctx, s.keys.AuditStream(), start, "+", auditPage).Result()
		if err != nil {
			return fmt.Errorf("read audit stream: %w", err)
		}
		for _, m := range msgs {
			rec, _ := m.Values[auditField].(string)
			if err := fn(AuditEntry{ID: m.ID, Record: []byte(rec)}); err != nil {
				return err
			}
		}
		if len(msgs) < auditPage {
			return nil
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

// DeleteAudit removes the entries ids (wecodex purge); it returns how many
// were there.
func (s *Audit) DeleteAudit(ctx context.Context, ids []string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := s.client.XDel(ctx, s.keys.AuditStream(), ids...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("delete audit records: %w", err)
	}
	return n, nil
}
