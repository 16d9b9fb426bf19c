package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestAuditStream(t *testing.T) { forEachBackend(t, testAuditStream) }

// Sequence numbers count per conversation; the stream keeps about
// audit.max_len records, the newest, oldest first; ReadAudit from a time
// skips what came before it.
func testAuditStream(t *testing.T, s *stores) {
	ctx := context.Background()
	a := NewAudit(s.DB)
	var seqs []int64
	for _, conv := range []string{"single:alice", "single:alice", "group:team", "single:alice"} {
		n, err := a.NextAuditSeq(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, n)
	}
	if fmt.Sprint(seqs) != "[1 2 1 3]" {
		t.Fatalf("sequence numbers %v, want [1 2 1 3]: per conversation", seqs)
	}

	const total, maxLen = 300, 10
	for i := range total {
		if err := a.AppendAudit(ctx, fmt.Appendf(nil, `{"n":%d}`, i), maxLen); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := a.ReadAudit(ctx, time.Time{}, func(e AuditEntry) error { got = append(got, string(e.Record)); return nil }); err != nil {
		t.Fatal(err)
	}
	// "About": Redis trims whole nodes of the stream (100 entries by
	// default), so a few more than max_len may stay, never fewer.
	if len(got) < maxLen || len(got) > maxLen+100 || got[len(got)-1] != fmt.Sprintf(`{"n":%d}`, total-1) {
		t.Fatalf("stream holds %d records ending %q, want about %d, the newest last", len(got), got[len(got)-1], maxLen)
	}

	later := time.Now().Add(time.Hour)
	var none int
	if err := a.ReadAudit(ctx, later, func(AuditEntry) error { none++; return nil }); err != nil || none != 0 {
		t.Fatalf("records since an hour from now: %d (%v), want none", none, err)
	}
}
