package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// A Redis restarted empty mid-turn loses the lease: the holder's renewal
// finds its token gone, and the holder re-takes the lease under the same
// token, its turn recorded running again. The fencing counter is raised to
// that token, so the next acquisition still outranks it.
func TestHolderRetakesLeaseLostWithRedis(t *testing.T) {
	r := startRedisProc(t)
	s := openProcStore(t, r)
	ctx := context.Background()
	const conv = "c-restart"
	mustEnqueue(t, s, conv, "one")
	tok, item, _, _, err := fields((s.TakeTurn(ctx, conv, "replica-a", time.Minute)))
	if err != nil || tok == 0 || string(item) != "one" {
		t.Fatalf("TakeTurn = %d %q %v", tok, item, err)
	}

	r.Restart()
	held, _, err := s.RenewLease(ctx, conv, tok, time.Minute)
	if err != nil || held {
		t.Fatalf("RenewLease after the restart = %v %v, want not held (the lease is gone)", held, err)
	}
	if ok, err := s.RetakeLease(ctx, conv, "replica-a", tok, item, time.Minute); err != nil || !ok {
		t.Fatalf("RetakeLease of a vanished lease = %v %v, want held", ok, err)
	}
	if replica, got, err := s.Lease(ctx, conv); err != nil || replica != "replica-a" || got != tok {
		t.Fatalf("Lease = %q %d %v, want replica-a %d", replica, got, err, tok)
	}
	if held, _, err := s.RenewLease(ctx, conv, tok, time.Minute); err != nil || !held {
		t.Fatalf("RenewLease after the retake = %v %v, want held", held, err)
	}
	if v := s.Client().Get(ctx, s.Keys().Conv(conv).Running()).Val(); v != "one" {
		t.Fatalf("running %q, want one", v)
	}
	if p, err := s.Pending(ctx, 10); err != nil || !slices.Equal(p, []string{conv}) {
		t.Fatalf("Pending = %v %v, want the retaken conversation", p, err)
	}
	// The turn ends; the next holder outranks the old token.
	if it, held, err := s.NextTurn(ctx, conv, tok, time.Minute); err != nil || !held || it != nil {
		t.Fatalf("NextTurn = %q %v %v, want released", it, held, err)
	}
	mustEnqueue(t, s, conv, "two")
	next, _, _, _, err := fields((s.TakeTurn(ctx, conv, "replica-b", time.Minute)))
	if err != nil || next <= tok {
		t.Fatalf("TakeTurn after the retake = %d %v, want a token > %d", next, err, tok)
	}
}

// Another replica that took the lease after Redis lost it keeps it: the old
// holder cannot re-take it, even though its token is larger than the new
// one (the counter restarted too).
func TestLeaseTakenAfterRedisRestartStaysTaken(t *testing.T) {
	r := startRedisProc(t)
	s := openProcStore(t, r)
	ctx := context.Background()
	const conv = "c-taken"
	for range 3 { // a token above 1, so the new holder's token is smaller
		mustEnqueue(t, s, conv, "x")
	}
	var tok int64
	for range 3 {
		var err error
		if tok, _, _, _, err = fields((s.TakeTurn(ctx, conv, "replica-a", time.Minute))); err != nil || tok == 0 {
			t.Fatal(tok, err)
		}
		if _, err := s.ReleaseLease(ctx, conv, tok); err != nil {
			t.Fatal(err)
		}
	}
	mustEnqueue(t, s, conv, "mine")
	tok, _, _, _, err := fields((s.TakeTurn(ctx, conv, "replica-a", time.Minute)))
	if err != nil || tok != 4 {
		t.Fatalf("TakeTurn = %d %v, want token 4", tok, err)
	}

	r.Restart()
	mustEnqueue(t, s, conv, "theirs")
	other, _, _, _, err := fields((s.TakeTurn(ctx, conv, "replica-b", time.Minute)))
	if err != nil || other != 1 {
		t.Fatalf("TakeTurn on the empty Redis = %d %v, want token 1", other, err)
	}
	if held, _, err := s.RenewLease(ctx, conv, tok, time.Minute); err != nil || held {
		t.Fatalf("old RenewLease = %v %v, want not held", held, err)
	}
	if ok, err := s.RetakeLease(ctx, conv, "replica-a", tok, []byte("mine"), time.Minute); err != nil || ok {
		t.Fatalf("RetakeLease of a lease another holds = %v %v, want refused", ok, err)
	}
	// Taken and released again before the old holder looks: still refused,
	// since the counter shows another holder came.
	if ok, err := s.ReleaseLease(ctx, conv, other); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if ok, err := s.RetakeLease(ctx, conv, "replica-a", tok, []byte("mine"), time.Minute); err != nil || ok {
		t.Fatalf("RetakeLease after another holder came and went = %v %v, want refused", ok, err)
	}
}

// A lease that lapsed (Redis or its holder stalled past the TTL) is given
// back to its holder while nobody else touched the conversation; once
// another replica took the lease, or finished the lapsed turn as an orphan,
// it is not.
func TestRetakeLapsedLease(t *testing.T) { forEachBackend(t, testRetakeLapsedLease) }

func testRetakeLapsedLease(t *testing.T, s *stores) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		other func(conv string) // what happens while the holder is away
		want  bool
	}{
		{"untouched", func(string) {}, true},
		{"orphan finished by another replica", func(conv string) {
			if _, _, _, orphan, err := fields((s.TakeTurn(ctx, conv, "b", time.Minute))); err != nil || orphan == nil {
				t.Fatalf("TakeTurn = %q %v, want the orphan", orphan, err)
			}
		}, false},
		{"taken by another replica", func(conv string) {
			mustEnqueue(t, s, conv, "theirs")
			if tok, _, _, _, err := fields((s.TakeTurn(ctx, conv, "b", time.Minute))); err != nil || tok == 0 {
				t.Fatal(tok, err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := "lapse-" + tc.name
			mustEnqueue(t, s, conv, "mine")
			tok, _, _, _, err := fields((s.TakeTurn(ctx, conv, "a", 50*time.Millisecond)))
			if err != nil || tok == 0 {
				t.Fatal(tok, err)
			}
			waitLeaseFree(t, s, conv)
			tc.other(conv)
			ok, err := s.RetakeLease(ctx, conv, "a", tok, nil, time.Minute)
			if err != nil || ok != tc.want {
				t.Fatalf("RetakeLease = %v %v, want %v", ok, err, tc.want)
			}
			if !tc.want {
				return
			}
			if v := s.Client().Get(ctx, s.Keys().Conv(conv).Running()).Val(); v != "mine" {
				t.Fatalf("running %q after a retake with no item, want the recorded mine", v)
			}
		})
	}
}

// A delivery whose ClaimAndEnqueue fails while Redis is frozen leaves either
// nothing or both the claim and the queued item, never a claim alone: the
// retry then either runs the message or finds the stream the first
// delivery queued, and the message is queued exactly once.
func TestClaimAndEnqueueWhileRedisStalls(t *testing.T) {
	r := startRedisProc(t)
	s := openProcStore(t, r)
	ctx := context.Background()
	const conv, msg = "c-stall", "msg-1"
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	r.Freeze()
	stalled, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, _, _, _, err := s.ClaimAndEnqueue(stalled, conv, "u", msg, "stream-a", []byte("item for stream-a"), 5)
	cancel()
	r.Thaw()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ClaimAndEnqueue on a frozen Redis: %v, want the deadline exceeded", err)
	}
	stream, claimed, _, _, err := s.ClaimAndEnqueue(ctx, conv, "u", msg, "stream-b", []byte("item for stream-b"), 5)
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Queued(ctx, conv)
	if err != nil {
		t.Fatal(err)
	}
	want := "item for " + stream
	if len(q) != 1 || string(q[0]) != want {
		t.Fatalf("queue %q after the retry (claimed %v, stream %s), want exactly [%s]", q, claimed, stream, want)
	}
	if p, err := s.Pending(ctx, 10); err != nil || !slices.Equal(p, []string{conv}) {
		t.Fatalf("Pending = %v %v", p, err)
	}
}

// A caller's deadline bounds a call to a frozen Redis: it fails with the
// deadline, before go-redis's own 3 s read timeout could have ended it.
func TestDeadlineBoundsCallsToAFrozenRedis(t *testing.T) {
	r := startRedisProc(t)
	s := openProcStore(t, r)
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	r.Freeze()
	defer r.Thaw()
	stalled, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := s.ClaimMessage(stalled, "c", "u", "m", "s")
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took >= 3*time.Second {
		t.Fatalf("ClaimMessage on a frozen Redis: %v after %v, want the deadline exceeded before go-redis's read timeout", err, took)
	}
}

// ClaimAndEnqueue claims and queues once per message; a repeat gets the
// first stream and queues nothing, a full queue keeps the claim, and
// ReleaseClaim frees only the claim of the caller's stream.
func TestClaimAndEnqueue(t *testing.T) { forEachBackend(t, testClaimAndEnqueue) }

func testClaimAndEnqueue(t *testing.T, s *stores) {
	ctx := context.Background()
	const conv = "claim"
	for i, tc := range []struct {
		msg, stream string
		want        claim
	}{
		{"m1", "s1", claim{Stream: "s1", Claimed: true, Position: 1}},
		{"m1", "s1-retry", claim{Stream: "s1"}},
		{"m2", "s2", claim{Stream: "s2", Claimed: true, Position: 2}},
		{"m3", "s3", claim{Stream: "s3", Claimed: true}}, // queue full
		{"m3", "s3-retry", claim{Stream: "s3"}},
	} {
		var got claim
		var err error
		got.Stream, got.Claimed, got.Position, got.Leased, err = s.ClaimAndEnqueue(ctx, conv, "u", tc.msg, tc.stream, []byte(tc.stream), 2)
		if err != nil || got != tc.want {
			t.Fatalf("%d: ClaimAndEnqueue(%s, %s) = %+v %v, want %+v", i, tc.msg, tc.stream, got, err, tc.want)
		}
	}
	q, _ := s.Queued(ctx, conv)
	if fmt.Sprintf("%q", q) != `["s1" "s2"]` {
		t.Fatalf("queue %q", q)
	}
	if _, _, _, _, err := fields((s.TakeTurn(ctx, conv, "r", time.Minute))); err != nil {
		t.Fatal(err)
	}
	if rec, ok, pos, leased, err := s.ClaimAndEnqueue(ctx, conv, "u", "m4", "s4", []byte("s4"), 2); err != nil || rec != "s4" || !ok || pos != 2 || !leased {
		t.Fatalf("ClaimAndEnqueue while leased = %q %v %d %v %v, want s4, claimed, 2, leased", rec, ok, pos, leased, err)
	}

	// A command's claim, released when its answer could not be stored.
	if rec, ok, err := s.ClaimMessage(ctx, conv, "u", "cmd", "sc"); err != nil || !ok || rec != "sc" {
		t.Fatalf("ClaimMessage = %q %v %v", rec, ok, err)
	}
	if rec, ok, err := s.ClaimMessage(ctx, conv, "u", "cmd", "sc2"); err != nil || ok || rec != "sc" {
		t.Fatalf("repeat ClaimMessage = %q %v %v, want sc, not claimed", rec, ok, err)
	}
	if err := s.ReleaseClaim(ctx, conv, "u", "cmd", "other"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.ClaimMessage(ctx, conv, "u", "cmd", "sc3"); ok {
		t.Fatal("a release for another stream freed the claim")
	}
	if err := s.ReleaseClaim(ctx, conv, "u", "cmd", "sc"); err != nil {
		t.Fatal(err)
	}
	if rec, ok, err := s.ClaimMessage(ctx, conv, "u", "cmd", "sc4"); err != nil || !ok || rec != "sc4" {
		t.Fatalf("ClaimMessage after the release = %q %v %v, want claimed", rec, ok, err)
	}
	if ttl := s.Client().PTTL(ctx, s.Keys().Conv(conv).Dedupe("u", "m1")).Val(); ttl <= 0 || ttl > DedupeTTL {
		t.Fatalf("claim TTL %v", ttl)
	}
}

// claim is what ClaimAndEnqueue returned, as one comparable value.
type claim struct {
	Stream   string
	Claimed  bool
	Position int
	Leased   bool
}

func mustEnqueue(t *testing.T, s *stores, conv, item string) {
	t.Helper()
	if pos, _, err := s.Enqueue(context.Background(), conv, []byte(item), 10); err != nil || pos == 0 {
		t.Fatalf("Enqueue(%s) = %d %v", item, pos, err)
	}
}

// fields spreads a TakenTurn into token, item, queued, orphan, for the fault
// tests written against the five-value TakeTurn.
func fields(token int64, item []byte, queued int, orphan []byte, err error) (int64, []byte, int, []byte, error) {
	return token, item, queued, orphan, err
}
