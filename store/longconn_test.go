package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

func TestLongConnKeysShareAHashTag(t *testing.T) {
	k := store.NewKeys("wx:")
	for _, tc := range []struct{ got, want string }{
		{k.LongConn("aib1").Holder(), "wx:{longconn:aib1}:holder"},
		{k.LongConn("aib1").HolderFence(), "wx:{longconn:aib1}:fence"},
		{k.LongConn("aib1").Stream("REQ_1"), "wx:{longconn:aib1}:frame:REQ_1"},
		{k.LongConn("aib1").Streams(), "wx:{longconn:aib1}:streams"},
		{k.LongConn("aib1").FramesChannel(), "wx:longconn:aib1:frames"},
		{k.LongConn("aib1").Sends(), "wx:{longconn:aib1}:sends"},
		{k.LongConn("aib1").SendsChannel(), "wx:longconn:aib1:sends"},
	} {
		if tc.got != tc.want {
			t.Errorf("key %q, want %q", tc.got, tc.want)
		}
	}
}

// TestHolderLeaseFencing: one holder at a time; a lapsed holder's token is
// refused after another took the lease, even for ending a stream.
func TestHolderLeaseFencing(t *testing.T) {
	prefix := testenv.Prefix(t, "holder")
	a, b := testenv.OpenStores(t, prefix), testenv.OpenStores(t, prefix)
	ctx := context.Background()
	ta, err := a.AcquireHolder(ctx, "aib1", "A", time.Minute)
	if err != nil || ta == 0 {
		t.Fatalf("A acquire = %d, %v; want a token", ta, err)
	}
	if tb, err := b.AcquireHolder(ctx, "aib1", "B", time.Minute); err != nil || tb != 0 {
		t.Fatalf("B acquire while A holds = %d, %v; want 0", tb, err)
	}
	if r, tok, _ := b.Holder(ctx, "aib1"); r != "A" || tok != ta {
		t.Fatalf("holder = %s/%d, want A/%d", r, tok, ta)
	}
	if ok, err := a.PutStreamFrame(ctx, "aib1", "REQ_1", 1, []byte("f1")); err != nil || !ok {
		t.Fatalf("put = %v, %v", ok, err)
	}
	// A lapses (simulated by deleting its lease as the TTL would).
	testenv.Redis(t).Del(ctx, a.DB.Keys().LongConn("aib1").Holder())
	tb, err := b.AcquireHolder(ctx, "aib1", "B", time.Minute)
	if err != nil || tb <= ta {
		t.Fatalf("B acquire after A lapsed = %d, %v; want a token above %d", tb, err, ta)
	}
	if held, err := a.RenewHolder(ctx, "aib1", "A", ta, time.Minute); err != nil || held {
		t.Fatalf("A renew with its old token = %v, %v; want refused", held, err)
	}
	if ok, err := a.EndStream(ctx, "aib1", "REQ_1", ta); err != nil || ok {
		t.Fatalf("A ends a stream with its old token = %v, %v; want refused", ok, err)
	}
	running, err := b.RunningStreams(ctx, "aib1")
	if err != nil || len(running) != 1 || string(running["REQ_1"]) != "f1" {
		t.Fatalf("running streams = %q, %v; want REQ_1: f1", running, err)
	}
	if ok, err := b.EndStream(ctx, "aib1", "REQ_1", tb); err != nil || !ok {
		t.Fatalf("B ends the stream = %v, %v", ok, err)
	}
	if running, _ := b.RunningStreams(ctx, "aib1"); len(running) != 0 {
		t.Fatalf("running after end = %q, want none", running)
	}
	if ok, _ := a.ReleaseHolder(ctx, "aib1", ta); ok {
		t.Fatal("A released B's lease with its old token")
	}
	if ok, _ := b.ReleaseHolder(ctx, "aib1", tb); !ok {
		t.Fatal("B could not release its lease")
	}
}

// TestHolderLeaseRetakenAfterRedisLostIt: a lease that vanished (Redis
// restarted) is re-taken by its holder's renewal, token and all.
func TestHolderLeaseRetakenAfterRedisLostIt(t *testing.T) {
	prefix := testenv.Prefix(t, "holder-retake")
	a := testenv.OpenStores(t, prefix)
	ctx := context.Background()
	ta, err := a.AcquireHolder(ctx, "aib1", "A", time.Minute)
	if err != nil || ta == 0 {
		t.Fatalf("acquire = %d, %v", ta, err)
	}
	testenv.Redis(t).Del(ctx, a.DB.Keys().LongConn("aib1").Holder())
	// Until the renewal re-takes it, the holder still ends its streams: a
	// final frame must not wait for a lease Redis forgot.
	if ok, err := a.EndStream(ctx, "aib1", "REQ_1", ta); err != nil || !ok {
		t.Fatalf("end a stream while the lease is gone = %v, %v; want ended", ok, err)
	}
	if held, err := a.RenewHolder(ctx, "aib1", "A", ta, time.Minute); err != nil || !held {
		t.Fatalf("renew after the lease vanished = %v, %v; want re-taken", held, err)
	}
	if r, tok, _ := a.Holder(ctx, "aib1"); r != "A" || tok != ta {
		t.Fatalf("holder = %s/%d, want A/%d", r, tok, ta)
	}
}

// TestStreamFramesOrderedAndEnded: a stream keeps its newest frame by seq,
// whatever order the writes arrive in (seqs beyond 2^53 included, where
// floating point would tie them); once ended it takes no frame and is no
// longer running.
func TestStreamFramesOrderedAndEnded(t *testing.T) {
	prefix := testenv.Prefix(t, "stream-frames")
	s := testenv.OpenStores(t, prefix)
	ctx := context.Background()
	token, err := s.AcquireHolder(ctx, "aib1", "A", time.Minute)
	if err != nil || token == 0 {
		t.Fatalf("acquire = %d, %v", token, err)
	}
	const big = int64(1)<<53 + 1
	for _, tc := range []struct {
		seq   int64
		frame string
		want  bool
	}{
		{big, "turn 1", true},
		{5, "queued, late", false},
		{big, "turn 1 again", false},
		{big + 1, "turn 2", true},
	} {
		if ok, err := s.PutStreamFrame(ctx, "aib1", "REQ_1", tc.seq, []byte(tc.frame)); err != nil || ok != tc.want {
			t.Errorf("put %q (seq %d) = %v, %v; want %v", tc.frame, tc.seq, ok, err, tc.want)
		}
	}
	if f, err := s.StreamFrame(ctx, "aib1", "REQ_1"); err != nil || string(f) != "turn 2" {
		t.Fatalf("newest frame = %q, %v; want turn 2", f, err)
	}
	if ok, err := s.EndStream(ctx, "aib1", "REQ_1", token); err != nil || !ok {
		t.Fatalf("end = %v, %v", ok, err)
	}
	if ok, err := s.PutStreamFrame(ctx, "aib1", "REQ_1", big+9, []byte("after the end")); err != nil || ok {
		t.Fatalf("put after the end = %v, %v; want refused", ok, err)
	}
	if f, err := s.StreamFrame(ctx, "aib1", "REQ_1"); err != nil || f != nil {
		t.Fatalf("frame of an ended stream = %q, %v; want none", f, err)
	}
	if running, err := s.RunningStreams(ctx, "aib1"); err != nil || len(running) != 0 {
		t.Fatalf("running = %q, %v; want none", running, err)
	}
	// The final frame it was ended for was never written: reopened, it is
	// running again with its newest frame, for the next holder.
	if ok, err := s.ReopenStream(ctx, "aib1", "REQ_1", token+1); err != nil || ok {
		t.Fatalf("reopen with another token = %v, %v; want refused", ok, err)
	}
	if ok, err := s.ReopenStream(ctx, "aib1", "REQ_1", token); err != nil || !ok {
		t.Fatalf("reopen = %v, %v", ok, err)
	}
	if running, err := s.RunningStreams(ctx, "aib1"); err != nil || len(running) != 1 || string(running["REQ_1"]) != "turn 2" {
		t.Fatalf("running after the reopen = %q, %v; want REQ_1: turn 2", running, err)
	}
	if ok, err := s.ReopenStream(ctx, "aib1", "REQ_1", token); err != nil || ok {
		t.Fatalf("reopen of a running stream = %v, %v; want nothing to undo", ok, err)
	}
	if _, err := s.PutStreamFrame(ctx, "aib1", "REQ_2", -1, []byte("x")); err == nil {
		t.Fatal("a negative seq was stored")
	}
}
