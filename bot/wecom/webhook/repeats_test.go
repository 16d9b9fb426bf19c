package webhook

import (
	"context"
	"log/slog"
	"testing"

	"github.com/wecodex/wecodex/bot"
)

// countingIntake queues every message on stream "s1" and counts the calls.
type countingIntake struct{ calls int }

func (in *countingIntake) Allowed(bot.Message) bool { return true }

func (in *countingIntake) Receive(_ context.Context, m bot.Message) (bot.Receipt, error) {
	in.calls++
	r := bot.Reply{Conversation: m.Conversation, User: m.User, To: bot.ReplyTo{Stream: "s1"}, State: bot.ReplyWaiting, Text: "⏳ Thinking…"}
	return bot.Receipt{Reply: r, Current: in.calls > 1}, nil
}

// oneFrameStore holds one running frame and counts the round trips made to
// read it; the rest of Store is not used here (a nil embedded interface
// panics if it is).
type oneFrameStore struct {
	Store
	owner, user string
	reads       int
}

func (s *oneFrameStore) LoadFrameAndLegacy(_ context.Context, streamID string) (string, string, string, string, bool, []byte, bool, error) {
	s.reads++
	if streamID != "s1" {
		return "", "", "", "", false, nil, false, nil
	}
	return string(frameRunning), s.owner, s.user, "Codex is writing", true, nil, false, nil
}

// A repeat of a message this replica received is answered with its
// stream's newest frame in one store read, without intake (limits,
// backlog, the claim script); another sender's copy of the msgid, or the
// same id in another conversation, is not a repeat of it.
func TestRepeatCostsOneFrameRead(t *testing.T) {
	alice := bot.Conversation{Kind: "single", ID: "alice"}
	st := &oneFrameStore{owner: owner(alice, "alice").conversation, user: "alice"}
	ch, err := New(st, nopDeliverer{}, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	in := &countingIntake{}
	ctx := context.Background()
	m := bot.Message{ID: "msg-1", User: "alice", Conversation: alice, Text: "hi"}
	first, err := ch.Receive(ctx, in, m)
	if err != nil || first != (Frame{StreamID: "s1", Content: "⏳ Thinking…"}) || in.calls != 1 || st.reads != 0 {
		t.Fatalf("first delivery: %+v, %v; intake calls %d, frame reads %d", first, err, in.calls, st.reads)
	}
	for i := 0; i < 3; i++ {
		f, err := ch.Receive(ctx, in, m)
		if err != nil || f != (Frame{StreamID: "s1", Content: "Codex is writing"}) {
			t.Fatalf("repeat %d: %+v, %v; want the running frame", i+1, f, err)
		}
	}
	if in.calls != 1 || st.reads != 3 {
		t.Fatalf("3 repeats made %d intake calls and %d frame reads, want 1 (the first delivery) and 3", in.calls, st.reads)
	}
	bob := m
	bob.User, bob.Conversation = "bob", bot.Conversation{Kind: "single", ID: "bob"}
	if _, err := ch.Receive(ctx, in, bob); err != nil || in.calls != 2 {
		t.Fatalf("bob's message with alice's msgid: %v, intake calls %d, want it taken in as his own", err, in.calls)
	}
}

type nopDeliverer struct{}

func (nopDeliverer) Deliver(context.Context, Delivery) error { return nil }
