package webhook

import (
	"encoding/binary"
	"testing"
)

func legacy(state byte, owner, content string) []byte {
	b := []byte{state, 0x01}
	b = binary.AppendUvarint(b, uint64(len(owner)))
	return append(append(b, owner...), content...)
}

// The previous release's frames decode to the same owner this release
// records: the conversation, and in a 1:1 chat its user.
func TestDecodeLegacyFrame(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want storedFrame
		ok   bool
	}{
		{legacy('R', "single:alice\x00alice", "💭 x"), storedFrame{frameRunning, frameOwner{"single:alice", "alice"}, "💭 x"}, true},
		{legacy('W', "group:c1", "queued"), storedFrame{frameWaiting, frameOwner{"group:c1", ""}, "queued"}, true},
		{legacy('F', "single:bob\x00bob", ""), storedFrame{frameFinished, frameOwner{"single:bob", "bob"}, ""}, true},
		{[]byte("Wno owner record"), storedFrame{}, false},
		{legacy('X', "group:c1", "?"), storedFrame{}, false},
		{[]byte{'R', 0x01, 0x7f, 'a'}, storedFrame{}, false}, // owner longer than the frame
	} {
		got, ok := decodeLegacyFrame(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("decodeLegacyFrame(%q) = %+v %v, want %+v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// Of the two releases' frames of one stream, the one further along wins;
// on a tie, this release's (its writer took the stream over).
func TestNewerOf(t *testing.T) {
	f := func(s frameState, c string) storedFrame { return storedFrame{state: s, content: c} }
	for _, tc := range []struct{ cur, old, want storedFrame }{
		{f(frameWaiting, "new"), f(frameRunning, "old"), f(frameRunning, "old")},
		{f(frameWaiting, "new"), f(frameFinished, "old"), f(frameFinished, "old")},
		{f(frameRunning, "new"), f(frameRunning, "old"), f(frameRunning, "new")},
		{f(frameRunning, "new"), f(frameWaiting, "old"), f(frameRunning, "new")},
		{f(frameWaiting, "new"), f(frameWaiting, "old"), f(frameWaiting, "new")},
	} {
		if got := newerOf(tc.cur, tc.old); got != tc.want {
			t.Errorf("newerOf(%+v, %+v) = %+v, want %+v", tc.cur, tc.old, got, tc.want)
		}
	}
}
