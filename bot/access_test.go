package bot_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// "*" allows everyone in the allow lists, and never makes anyone an admin:
// an admin decides every approval.
func TestStarIsNeverAnAdmin(t *testing.T) {
	a := bot.Access{Admins: []string{"*"}}
	if a.IsAdmin("mallory") || a.IsAdmin("*") {
		t.Fatal(`"*" in Admins made someone an admin`)
	}
	if a.Allowed(bot.Message{User: "mallory", Conversation: bot.Conversation{Kind: "single", ID: "mallory"}}) {
		t.Fatal(`"*" in Admins let a stranger in`)
	}
	if !(bot.Access{Admins: []string{"alice"}}).IsAdmin("alice") {
		t.Fatal("a named admin is not one")
	}
}

// An external contact (another company's from.corpid, or an external
// userid) is refused whatever the lists say, with a reply that says why,
// unless access.allow_external; the bot's own company is not external.
func TestExternalContactsRefusedUnlessAllowed(t *testing.T) {
	const extID = "wmAJ2GCAAAme1XPfXJT4vd3cDBMcAiYQ"
	if !bot.ExternalUserID(extID) || !bot.ExternalUserID("woAJ2GCAAAXtWyujaWJHDDGi0mACHAAA") ||
		bot.ExternalUserID("wmiller") || bot.ExternalUserID("alice") {
		t.Fatal("ExternalUserID misjudges an id")
	}
	open := bot.Access{AllowUsers: []string{"*"}, Corp: "wwOurs"}
	for _, tc := range []struct {
		m        bot.Message
		external bool
	}{
		{bot.Message{User: "alice"}, false},
		{bot.Message{User: "alice", Corp: "wwOurs"}, false},
		{bot.Message{User: "alice", Corp: "wwTheirs"}, true},
		{bot.Message{User: extID}, true},
	} {
		tc.m.Conversation = bot.Conversation{Kind: "single", ID: tc.m.User}
		if got := open.External(tc.m); got != tc.external {
			t.Errorf("%+v: external %v, want %v", tc.m, got, tc.external)
		}
		if got := open.Allowed(tc.m); got == tc.external {
			t.Errorf("%+v: allowed %v with allow_external off", tc.m, got)
		}
		withExternal := open
		withExternal.AllowExternal = true
		if !withExternal.Allowed(tc.m) {
			t.Errorf("%+v: refused with allow_external on", tc.m)
		}
	}
	if (bot.Access{AllowUsers: []string{"bob"}}).External(bot.Message{User: "bob", Corp: "wwAny"}) != true {
		t.Error("with no corp id known, a named company is another")
	}

	st := testenv.OpenStores(t, testenv.Prefix(t, "external"))
	ch := newMemChat("a")
	e, err := bot.New(bot.Config{
		Replica: "r1", WorkspaceRoot: t.TempDir(), UpdateInterval: time.Millisecond,
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access: bot.Access{AllowUsers: []string{"*"}, AllowChats: []string{"wrkChat1"}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, testenv.EngineStore(st), &echoAgent{}, ch)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []bot.Message{
		{Conversation: bot.Conversation{Kind: "single", ID: "bob"}, User: "bob", Corp: "wwTheirs", Text: "cat /etc/passwd"},
		{Conversation: bot.Conversation{Kind: "group", ID: "wrkChat1", Group: true}, User: extID, Text: "/status"},
	} {
		m.ID, m.Channel = "x"+string(rune('1'+i)), "a"
		rc, err := e.Receive(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Sorry, this bot takes messages only from members of its own company."; rc.Reply.State != bot.ReplyFinished || rc.Reply.Text != want {
			t.Fatalf("%s: reply %+v, want finished %q", m.User, rc.Reply, want)
		}
	}
}
