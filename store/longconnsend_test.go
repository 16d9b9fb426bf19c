package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/testenv"
)

// TestLongConnSendTakenOnce: a send put on any replica is taken once, by
// the holder only; a deposed holder's claim leaves it for its successor.
func TestLongConnSendTakenOnce(t *testing.T) {
	prefix := testenv.Prefix(t, "longconn-send")
	a, b := testenv.OpenStores(t, prefix), testenv.OpenStores(t, prefix)
	ctx := context.Background()
	ta, err := a.AcquireHolder(ctx, "aib1", "A", time.Minute)
	if err != nil || ta == 0 {
		t.Fatalf("acquire = %d, %v", ta, err)
	}
	if err := b.PutSend(ctx, "aib1", "s1", []byte(`{"msgtype":"template_card"}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.PutSend(ctx, "aib1", "s2", []byte(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	ids, err := a.PendingSends(ctx, "aib1")
	slices.Sort(ids)
	if err != nil || !slices.Equal(ids, []string{"s1", "s2"}) {
		t.Fatalf("pending = %q, %v; want s1 s2", ids, err)
	}
	if got, err := b.ClaimSend(ctx, "aib1", "s1", ta+1); err != nil || got != nil {
		t.Fatalf("claim with a token that does not hold = %q, %v; want nothing", got, err)
	}
	if got, err := a.ClaimSend(ctx, "aib1", "s1", ta); err != nil || string(got) != `{"msgtype":"template_card"}` {
		t.Fatalf("holder's claim = %q, %v; want the send", got, err)
	}
	if got, err := a.ClaimSend(ctx, "aib1", "s1", ta); err != nil || got != nil {
		t.Fatalf("second claim = %q, %v; want nothing (taken once)", got, err)
	}
	// A lapses; its late claim of s2 must leave s2 for B.
	testenv.Redis(t).Del(ctx, a.DB.Keys().LongConn("aib1").Holder())
	tb, err := b.AcquireHolder(ctx, "aib1", "B", time.Minute)
	if err != nil || tb == 0 {
		t.Fatalf("B acquire = %d, %v", tb, err)
	}
	if got, err := a.ClaimSend(ctx, "aib1", "s2", ta); err != nil || got != nil {
		t.Fatalf("deposed holder's claim = %q, %v; want nothing", got, err)
	}
	if ids, _ := b.PendingSends(ctx, "aib1"); !slices.Equal(ids, []string{"s2"}) {
		t.Fatalf("pending after the deposed claim = %q, want s2", ids)
	}
	if got, err := b.ClaimSend(ctx, "aib1", "s2", tb); err != nil || string(got) != `{"n":2}` {
		t.Fatalf("new holder's claim = %q, %v", got, err)
	}
	if ids, _ := b.PendingSends(ctx, "aib1"); len(ids) != 0 {
		t.Fatalf("pending at the end = %q, want none", ids)
	}
}

// TestWatchRelayTellsFramesFromSends: frames and sends are announced on
// their own channels and reach their own callback, in order.
func TestWatchRelayTellsFramesFromSends(t *testing.T) {
	prefix := testenv.Prefix(t, "longconn-relay")
	a := testenv.OpenStores(t, prefix)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	got := make(chan string, 4)
	done := make(chan error, 1)
	go func() {
		done <- a.WatchRelay(ctx, "aib1", func() { close(ready) },
			func(id string) { got <- "frame " + id }, func(id string) { got <- "send " + id })
	}()
	<-ready
	if _, err := a.PutStreamFrame(ctx, "aib1", "REQ_1", 1, []byte("f")); err != nil {
		t.Fatal(err)
	}
	if err := a.PutSend(ctx, "aib1", "s1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutStreamFrame(ctx, "aib1", "REQ_2", 1, []byte("f")); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for range 3 {
		seen = append(seen, <-got)
	}
	if want := []string{"frame REQ_1", "send s1", "frame REQ_2"}; !slices.Equal(seen, want) {
		t.Fatalf("announced %q, want %q", seen, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch ended with %v, want nil on cancel", err)
	}
}
