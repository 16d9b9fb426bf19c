package webhook_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

const unknownStream = "This reply is no longer available. Send the message again if you still need an answer."

// refreshAs sends WeCom's refresh callback for stream id as it would come
// from user, in chat when chat is not "" (a group), and returns the frame
// the bot answered.
func refreshAs(t *testing.T, h *hookSetup, id, user, chat string) wecom.StreamFrame {
	t.Helper()
	cb := map[string]any{"msgid": "refresh-" + user + "-" + chat, "aibotid": hookBotID, "chattype": "single",
		"from": map[string]string{"userid": user}, "msgtype": "stream", "stream": map[string]string{"id": id}}
	if chat != "" {
		cb["chattype"], cb["chatid"] = "group", chat
	}
	payload, err := json.Marshal(cb)
	if err != nil {
		t.Fatal(err)
	}
	d, err := h.sim.Deliver(context.Background(), payload)
	if err != nil {
		t.Fatalf("refresh of %s as %s/%s: %v", id, user, chat, err)
	}
	r, err := wecom.ParseReply(d.Plaintext)
	if err != nil || r.MsgType != "stream" || r.Stream == nil {
		t.Fatalf("refresh of %s as %s/%s answered %s (%v), want a stream frame", id, user, chat, d.Plaintext, err)
	}
	return *r.Stream
}

// A refresh for alice's stream from anyone else is answered as for a
// stream that does not exist; alice's own refresh gets her frame.
func TestWebhookRefreshFromAnotherConversation(t *testing.T) {
	h := newHook(t)
	s, err := h.sim.Send(context.Background(), wecomtest.Message{From: "alice", Text: "my secret plans"})
	if err != nil {
		t.Fatal(err)
	}
	if f := refreshAs(t, h, s.ID, "alice", ""); f != (wecom.StreamFrame{ID: s.ID, Content: thinking}) {
		t.Fatalf("alice's refresh = %+v, want her thinking frame", f)
	}
	gone := wecom.StreamFrame{ID: s.ID, Content: unknownStream, Finish: true}
	for _, who := range [][2]string{{"bob", ""}, {"alice", "alice"}, {"bob", "wrkChat1"}, {"", ""}} {
		if f := refreshAs(t, h, s.ID, who[0], who[1]); f != gone {
			t.Errorf("refresh by %q in chat %q = %+v, want %+v", who[0], who[1], f, gone)
		}
	}
}

// A message callback carrying alice's msgid from another sender is that
// sender's own message, not a repeat of alice's: it never gets her stream.
func TestWebhookForeignMsgIDIsNotARepeat(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	alice, err := h.sim.Send(ctx, wecomtest.Message{MsgID: "dup-1", From: "alice", Text: "my secret plans"})
	if err != nil {
		t.Fatal(err)
	}
	mallory, err := h.sim.Send(ctx, wecomtest.Message{MsgID: "dup-1", From: "mallory", Text: "show me"})
	if err != nil {
		t.Fatal(err)
	}
	refused := "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."
	if mallory.ID == alice.ID || mallory.First != (wecomtest.Frame{ID: mallory.ID, Content: refused, Finish: true}) {
		t.Fatalf("mallory with alice's msgid got %+v (alice's stream %s), want her own refusal", mallory.First, alice.ID)
	}
	group, err := h.sim.Send(ctx, wecomtest.Message{MsgID: "dup-1", From: "bob", ChatID: "wrkChat1", Text: "@CodexBot run it"})
	if err != nil {
		t.Fatal(err)
	}
	if group.ID == alice.ID || group.First != (wecomtest.Frame{ID: group.ID, Content: thinking}) {
		t.Fatalf("bob in the group with alice's msgid got %+v, want his own new stream", group.First)
	}
	again, err := h.sim.Send(ctx, wecomtest.Message{MsgID: "dup-1", From: "alice", Text: "my secret plans"})
	if err != nil || again.ID != alice.ID {
		t.Fatalf("alice's own repeat: stream %s (%v), want %s", again.ID, err, alice.ID)
	}
	for conv, n := range map[string]int{"single:alice": 1, "group:wrkChat1": 1, "single:mallory": 0} {
		if items, err := h.st.Queued(ctx, conv); err != nil || len(items) != n {
			t.Errorf("queue of %s: %d items (%v), want %d", conv, len(items), err, n)
		}
	}
}

// A group whose chat id is alice's user id is its own conversation.
func TestWebhookGroupNamedLikeAUser(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	for _, m := range []wecomtest.Message{
		{From: "alice", Text: "in private"},
		{From: "alice", ChatID: "alice", Text: "@CodexBot in the group"},
	} {
		if _, err := h.sim.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for conv, text := range map[string]string{"single:alice": "in private", "group:alice": "in the group"} {
		items, err := h.st.Queued(ctx, conv)
		if err != nil || len(items) != 1 {
			t.Fatalf("queue of %s: %q (%v), want one message", conv, items, err)
		}
		var q struct{ Text, Conv string }
		if err := json.Unmarshal(items[0], &q); err != nil || q.Text != text || q.Conv != conv {
			t.Errorf("queued in %s: %+v (%v), want %q", conv, q, err, text)
		}
	}
}
