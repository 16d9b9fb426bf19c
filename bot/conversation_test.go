package bot

import (
	"encoding/json"
	"testing"
)

// The key is what Redis state was written under before conversations were
// typed: a change of format loses every session, queue and workspace.
func TestConversationKeyFormat(t *testing.T) {
	for c, want := range map[Conversation]string{
		{Kind: "single", ID: "alice"}:                    "single:alice",
		{Kind: "group", ID: "wrkChat1", Group: true}:     "group:wrkChat1",
		{Kind: "app", ID: "alice"}:                       "app:alice",
		{Kind: "room", ID: "r:1", Group: true}:           "room:r:1",
		{Kind: "single", ID: "zhang san/李"}:              "single:zhang san/李",
		{Kind: "group", ID: "single:alice", Group: true}: "group:single:alice",
	} {
		if got := c.Key(); got != want {
			t.Errorf("%#v.Key() = %q, want %q", c, got, want)
		}
	}
}

// A queued message reads back as the conversation it was queued in, whether
// this version queued it or the previous one, which recorded the key and the
// kind (its chat type) but not Group.
func TestQueuedConversationReadsBack(t *testing.T) {
	for _, tc := range []struct {
		item       string
		want       Conversation
		namespaced bool
	}{
		{`{"msgid":"m","conv":"group:wrkChat1","chat":"group","group":true}`, Conversation{Kind: "group", ID: "wrkChat1", Group: true}, true},
		{`{"msgid":"m","conv":"room:r:1","chat":"room","group":true}`, Conversation{Kind: "room", ID: "r:1", Group: true}, true},
		{`{"msgid":"m","conv":"dm:bob","chat":"dm","group":false}`, Conversation{Kind: "dm", ID: "bob"}, true},
		// Queued by the previous version.
		{`{"msgid":"m","conv":"single:alice","chat":"single","user":"alice"}`, Conversation{Kind: "single", ID: "alice"}, true},
		{`{"msgid":"m","conv":"group:wrkChat1","chat":"group","user":"alice"}`, Conversation{Kind: "group", ID: "wrkChat1", Group: true}, true},
		{`{"msgid":"m","conv":"app:alice","chat":"app","user":"alice"}`, Conversation{Kind: "app", ID: "alice"}, true},
		// Queued before keys were namespaced: the bare id.
		{`{"msgid":"m","conv":"alice","chat":"single"}`, Conversation{Kind: "single", ID: "alice"}, false},
		{`{"msgid":"m","conv":"wrkChat1","chat":"group"}`, Conversation{Kind: "group", ID: "wrkChat1", Group: true}, false},
	} {
		var q queued
		if err := json.Unmarshal([]byte(tc.item), &q); err != nil {
			t.Fatal(err)
		}
		if got := q.conversation(); got != tc.want || q.namespaced() != tc.namespaced {
			t.Errorf("%s: conversation %#v namespaced %v, want %#v %v", tc.item, got, q.namespaced(), tc.want, tc.namespaced)
		}
	}
}

// What intake queues keeps the fields the previous version reads ("conv",
// the key, and "chat", the kind), so a replica of either version runs it.
func TestQueuedFormIsThePreviousOnes(t *testing.T) {
	c := Conversation{Kind: "group", ID: "wrkChat1", Group: true}
	group := c.Group
	b, err := json.Marshal(queued{MsgID: "m1", StreamID: "s1", Conversation: c.Key(), Kind: c.Kind, Group: &group, User: "alice", Text: "hi", Received: 7})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"msgid":"m1","stream":"s1","conv":"group:wrkChat1","chat":"group","group":true,"user":"alice","text":"hi","received":7}`
	if string(b) != want {
		t.Fatalf("queued form = %s, want %s", b, want)
	}
}

func TestConversationValid(t *testing.T) {
	for c, ok := range map[Conversation]bool{
		{Kind: "single", ID: "alice"}: true,
		{Kind: "", ID: "alice"}:       false,
		{Kind: "single", ID: ""}:      false,
		{Kind: "a:b", ID: "c"}:        false,
	} {
		if err := c.valid(); (err == nil) != ok {
			t.Errorf("%#v.valid() = %v, want ok %v", c, err, ok)
		}
	}
}
