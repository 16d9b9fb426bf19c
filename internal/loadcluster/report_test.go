package main

import (
	"errors"
	"testing"
)

// The tally counts what WeCom received for each message the way the
// report claims: once on the card or through response_url is answered
// once; twice anywhere, or a second stream, is duplicated; a card saying
// the server stopped is lost with the killed replica; no answer or a
// broken stream is lost silently; a conversation whose turns the model
// saw in another order than sent is out of order.
func TestTally(t *testing.T) {
	r := &report{
		outcomes: []outcome{
			{conv: 0, k: 0, onCard: 1},
			{conv: 0, k: 1, posted: 1},
			{conv: 1, k: 0, onCard: 1, posted: 1},
			{conv: 1, k: 1, onCard: 1, streams: 2},
			{conv: 2, k: 0, final: "❌ Failed: the server running this turn stopped before it finished. Send the message again."},
			{conv: 2, k: 1, final: "⏳ Thinking…", followErr: errors.New("stream expired")},
			{conv: 3, k: 0, final: "❌ Failed: something else"},
			{conv: 3, k: 1, onCard: 1},
		},
		order: map[int][]int{0: {0, 1}, 1: {0, 1}, 2: {1, 0}, 3: {0}},
	}
	r.tally(2)
	if r.once != 3 || r.duplicated != 2 || r.stopped != 1 || r.lost != 2 || r.outOfOrder != 2 {
		t.Fatalf("once %d duplicated %d stopped %d lost %d out of order %d, want 3 2 1 2 2",
			r.once, r.duplicated, r.stopped, r.lost, r.outOfOrder)
	}
	if r.ok() {
		t.Fatal("a run with losses reported ok")
	}
}

// Every tenth message is delivered twice at the default share, whatever
// conversation or position it has.
func TestRedelivered(t *testing.T) {
	o := options{conversations: 60, msgs: 3, redeliver: 0.10}
	n := 0
	for i := 0; i < o.conversations; i++ {
		for k := 0; k < o.msgs; k++ {
			if redelivered(i, k, o) {
				n++
			}
		}
	}
	if n != 18 {
		t.Fatalf("%d of 180 messages redelivered, want 18", n)
	}
}
