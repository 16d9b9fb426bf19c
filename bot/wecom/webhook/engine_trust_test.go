package webhook_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/testenv"
)

func groupMsg(id, chat, user, text string) bot.Message {
	return bot.Message{ID: id, Conversation: wecom.GroupChat(chat), User: user,
		Text: text, Reply: bot.ReplyTo{URL: "https://reply/" + id}}
}

func single(user string) webhook.Asker {
	return webhook.Asker{Conversation: wecom.SingleChat(user), User: user}
}

// A group whose chat id is "alice" and the user alice in 1:1 are two
// conversations: two sessions, two workspaces.
func TestGroupNamedLikeAUserIsAnotherConversation(t *testing.T) {
	st := testenv.OpenStores(t, testenv.Prefix(t, "bot"))
	cfg := testConfig(t, "a")
	cfg.Access = bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"alice"}}
	r := newReplica(t, st, cfg)
	r.run(t)
	waitFinished(t, r.e, receive(t, r.e, msg("m1", "alice", "in private")).StreamID)
	waitFinished(t, r.e, receive(t, r.e, groupMsg("g1", "alice", "carol", "in the group")).StreamID)
	if n := r.agent.Sessions(); n != 2 {
		t.Fatalf("%d agent sessions, want one per conversation", n)
	}
	ctx := t.Context()
	s1, cwd1, err1 := st.Conversation(ctx, "single:alice")
	s2, cwd2, err2 := st.Conversation(ctx, "group:alice")
	if err1 != nil || err2 != nil || s1 == "" || s2 == "" || s1 == s2 {
		t.Fatalf("sessions: 1:1 %q (%v), group %q (%v); want two different ones", s1, err1, s2, err2)
	}
	for _, c := range []struct{ conv, cwd string }{{"single:alice", cwd1}, {"group:alice", cwd2}} {
		want, _ := filepath.Abs(bot.WorkspaceDir(cfg.WorkspaceRoot, c.conv))
		if info, err := os.Stat(c.cwd); c.cwd != want || err != nil || !info.IsDir() || filepath.Dir(c.cwd) != cfg.WorkspaceRoot {
			t.Fatalf("workspace of %s = %q (%v), want the directory %q directly under the root", c.conv, c.cwd, err, want)
		}
	}
	if cwd1 == cwd2 {
		t.Fatalf("both conversations work in %s", cwd1)
	}
}

// A message whose conversation has no kind (a bare id, as keys were before
// they were namespaced), no id, or a kind that would make its key another
// conversation's is a channel bug; the engine refuses it instead of
// guessing. (A key that disagrees with its chat type, the other such bug,
// can no longer be written: only bot makes keys.)
func TestUnNamespacedConversationIsRefused(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	for _, m := range []bot.Message{
		{ID: "m1", Conversation: bot.Conversation{ID: "alice"}, User: "alice", Text: "hi"},
		{ID: "m2", Conversation: bot.Conversation{Kind: wecom.KindSingle}, User: "alice", Text: "hi"},
		{ID: "m3", Conversation: bot.Conversation{Kind: "group:al", ID: "ice"}, User: "alice", Text: "hi"},
	} {
		if _, err := r.e.Receive(t.Context(), m); err == nil {
			t.Errorf("Receive(%+v) accepted a conversation with no kind, no id or a ':' in its kind", m)
		}
	}
}

// A stream's frames go only to its conversation (and, 1:1, its user):
// anyone else is answered as for a stream that does not exist.
func TestFrameIsAnsweredOnlyToItsOwner(t *testing.T) {
	cfg := testConfig(t, "a")
	cfg.Access = bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"chat1"}}
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), cfg)
	r.run(t)
	ctx := t.Context()
	mine := waitFinished(t, r.e, receive(t, r.e, msg("m1", "alice", "secret plans")).StreamID)
	group := waitFinished(t, r.e, receive(t, r.e, groupMsg("g1", "chat1", "carol", "group plans")).StreamID)
	if f, ok, err := r.e.Frame(ctx, mine.StreamID, single("alice")); err != nil || !ok || f != mine {
		t.Fatalf("alice's own refresh = %+v %v %v, want %+v", f, ok, err, mine)
	}
	groupAsker := webhook.Asker{Conversation: wecom.GroupChat("chat1"), User: "dave"}
	if f, ok, err := r.e.Frame(ctx, group.StreamID, groupAsker); err != nil || !ok || f != group {
		t.Fatalf("a group member's refresh = %+v %v %v, want %+v", f, ok, err, group)
	}
	for _, c := range []struct {
		name   string
		stream string
		asker  webhook.Asker
	}{
		{"another user", mine.StreamID, single("bob")},
		{"a group named like the user", mine.StreamID, webhook.Asker{Conversation: wecom.GroupChat("alice"), User: "alice"}},
		{"the user's key with another user", mine.StreamID, webhook.Asker{Conversation: wecom.SingleChat("alice"), User: "bob"}},
		{"a member of another group", group.StreamID, webhook.Asker{Conversation: wecom.GroupChat("chat2"), User: "carol"}},
		{"the sender in 1:1", group.StreamID, single("carol")},
	} {
		f, ok, err := r.e.Frame(ctx, c.stream, c.asker)
		if err != nil || ok || f != (webhook.Frame{StreamID: c.stream}) {
			t.Errorf("%s: refresh = %+v %v %v, want nothing (as for an unknown stream)", c.name, f, ok, err)
		}
	}
}

// Another sender's callback carrying alice's msgid is a message of its
// own: it never gets alice's stream, and a refused sender stays refused.
func TestMsgIDIsDedupedPerConversationAndUser(t *testing.T) {
	cfg := testConfig(t, "a")
	cfg.Access = bot.Access{AllowUsers: []string{"alice", "bob"}, AllowChats: []string{"chat1"}}
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), cfg)
	r.run(t)
	first := receive(t, r.e, msg("m1", "alice", "gate:a"))
	waitStarted(t, r.agent, "gate:a")
	refused := receive(t, r.e, msg("m1", "mallory", "gate:a"))
	want := webhook.Frame{StreamID: refused.StreamID, Content: "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list.", Finish: true}
	if refused.StreamID == first.StreamID || refused != want {
		t.Fatalf("mallory with alice's msgid got %+v, want her own refusal", refused)
	}
	others := []bot.Message{msg("m1", "bob", "from bob"), groupMsg("m1", "chat1", "alice", "from the group")}
	for _, m := range others {
		f := receive(t, r.e, m)
		if f.StreamID == first.StreamID {
			t.Fatalf("%s in %s with alice's msgid was answered with alice's stream", m.User, m.Conversation)
		}
		waitFinished(t, r.e, f.StreamID)
	}
	if again := receive(t, r.e, msg("m1", "alice", "gate:a")); again.StreamID != first.StreamID {
		t.Fatalf("alice's own repeat started stream %s, want %s", again.StreamID, first.StreamID)
	}
	r.agent.release("a")
	waitFinished(t, r.e, first.StreamID)
	if p := r.agent.Prompts(); !slices.Equal(p, []string{"gate:a", "from bob", "From: alice\n\nfrom the group"}) {
		t.Fatalf("prompts %q, want alice's once and each other message's own", p)
	}
}

// A message queued before conversation keys were namespaced (it waited
// across the upgrade) is not run under its old, ambiguous key: its card
// asks for it again.
func TestMessageQueuedUnderAnOldKeyIsNotRun(t *testing.T) {
	st := testenv.OpenStores(t, testenv.Prefix(t, "bot"))
	item := `{"msgid":"old1","stream":"s-old","conv":"alice","user":"alice","text":"from before","chat":"single","received":1}`
	if _, _, err := st.Enqueue(t.Context(), "alice", []byte(item), 5); err != nil {
		t.Fatal(err)
	}
	r := newReplica(t, st, testConfig(t, "a"))
	r.run(t)
	f := waitFinished(t, r.e, "s-old")
	if want := "❌ Failed: the bot was upgraded while this message waited. Send the message again."; f.Content != want {
		t.Fatalf("card of the old message = %q, want %q", f.Content, want)
	}
	if own, ok, err := r.e.Frame(t.Context(), "s-old", single("alice")); err != nil || !ok || own != f {
		t.Fatalf("alice's refresh of it = %+v %v %v", own, ok, err)
	}
	if p := r.agent.Prompts(); len(p) != 0 {
		t.Fatalf("the agent ran %q", p)
	}
}
