package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestThreadRecords(t *testing.T) { forEachBackend(t, testThreadRecords) }

// A conversation's threads come back newest use first with what was
// recorded of them; a use without a record keeps the record; past
// ThreadsKept the least recently used go, records and all; another
// conversation sees none of them.
func testThreadRecords(t *testing.T, s *stores) {
	ctx := context.Background()
	at := time.UnixMilli(1_796_000_000_000)
	for i := range ThreadsKept + 2 {
		id := fmt.Sprint("th-", i)
		if err := s.RecordThread(ctx, "single:alice", id, []byte(`{"first":"`+id+`"}`), at.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// th-2, the oldest kept, is used again without a new record.
	if err := s.RecordThread(ctx, "single:alice", "th-2", nil, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	ids, records, used, err := s.UsedThreads(ctx, "single:alice")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"th-2", "th-11", "th-10", "th-9", "th-8", "th-7", "th-6", "th-5", "th-4", "th-3"}
	if !slices.Equal(ids, want) {
		t.Fatalf("threads = %v, want %v", ids, want)
	}
	if string(records[0]) != `{"first":"th-2"}` || string(records[1]) != `{"first":"th-11"}` || !used[0].Equal(at.Add(time.Hour)) || !used[1].Equal(at.Add(11*time.Minute)) {
		t.Fatalf("first two: %q used %v, %q used %v", records[0], used[0], records[1], used[1])
	}
	all, err := s.Client().HKeys(ctx, s.Threads.keys.Conv("single:alice").ThreadRecords()).Result()
	if err != nil || len(all) != ThreadsKept || slices.Contains(all, "th-0") || slices.Contains(all, "th-1") {
		t.Fatalf("records kept: %v (%v), want the %d kept threads' only", all, err, ThreadsKept)
	}
	for _, key := range []string{s.Threads.keys.Conv("single:alice").Threads(), s.Threads.keys.Conv("single:alice").ThreadRecords()} {
		if ttl, err := s.Client().PTTL(ctx, key).Result(); err != nil || ttl <= ConversationTTL-time.Minute || ttl > ConversationTTL {
			t.Errorf("%s TTL %v (%v), want %v", key, ttl, err, ConversationTTL)
		}
	}
	ids, _, _, err = s.UsedThreads(ctx, "single:bob")
	if err != nil || len(ids) != 0 {
		t.Fatalf("bob's threads = %v (%v), want none", ids, err)
	}
	// A use recorded before any record (a thread from before records)
	// comes back with none.
	if err := s.RecordThread(ctx, "single:bob", "th-x", nil, at); err != nil {
		t.Fatal(err)
	}
	ids, records, _, err = s.UsedThreads(ctx, "single:bob")
	if err != nil || !slices.Equal(ids, []string{"th-x"}) || records[0] != nil {
		t.Fatalf("bob's threads = %v %q (%v), want th-x without a record", ids, records, err)
	}
}
