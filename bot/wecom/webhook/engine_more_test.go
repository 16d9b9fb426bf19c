package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/testenv"
)

// A replica that died holding the lease (no release, no heartbeat) blocks its
// conversation only until the lease expires; then another replica runs the
// waiting messages.
func TestDeadReplicaLeaseExpires(t *testing.T) {
	prefix := testenv.Prefix(t, "bot")
	st := testenv.OpenStores(t, prefix)
	ctx := context.Background()
	if _, _, err := st.Enqueue(ctx, "single:alice", []byte("popped by the ghost"), 5); err != nil {
		t.Fatal(err)
	}
	// The ghost's lease outlives any stall of this test until the test
	// makes it lapse, as the lease of a replica that died does.
	tok, _, _, _, err := st.TakeTurn(ctx, "single:alice", "ghost", time.Hour)
	if err != nil || tok == 0 {
		t.Fatalf("ghost TakeTurn = %d %v", tok, err)
	}
	b := newReplica(t, st, testConfig(t, "b"))
	b.run(t)
	f := receive(t, b.e, msg("m1", "alice", "after the ghost"))
	if f.Content != "⏳ Queued (position 1) — waiting for the running turn to finish." {
		t.Fatalf("while the ghost holds the lease: %q", f.Content)
	}
	if held, _, err := st.RenewLease(ctx, "single:alice", tok, time.Millisecond); err != nil || !held {
		t.Fatalf("let the ghost's lease lapse: held %v, %v", held, err)
	}
	got := waitFinished(t, b.e, f.StreamID).Content
	if want := (card{text: "after the ghost", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("after expiry:\n%q\nwant\n%q", got, want)
	}
}

// A permission decision shows on the card of the turn that asked.
func TestPermissionDecisionShowsOnTheCard(t *testing.T) {
	cfg := testConfig(t, "a")
	cfg.Approval = acpbridge.ApprovalDeny
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), cfg)
	r.run(t)
	got := waitFinished(t, r.e, receive(t, r.e, msg("m1", "alice", "ask")).StreamID).Content
	want := card{text: "ask", middle: []acpbridge.Notice{{Level: acpbridge.NoticeWarning, Text: "declined: run ls"}},
		withAnswer: true, status: done()}.render()
	if got != want {
		t.Fatalf("card:\n%q\nwant\n%q", got, want)
	}
}

func TestGroupChatIsOneConversation(t *testing.T) {
	cfg := testConfig(t, "a")
	cfg.Access = bot.Access{AllowChats: []string{"chat1"}}
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), cfg)
	r.run(t)
	m := bot.Message{ID: "g1", Conversation: wecom.GroupChat("chat1"), User: "carol",
		Text: bot.StripMention("@wecodex  list the files", "wecodex")}
	waitFinished(t, r.e, receive(t, r.e, m).StreamID)
	m2 := m
	m2.ID, m2.User, m2.Text = "g2", "dave", "and again"
	waitFinished(t, r.e, receive(t, r.e, m2).StreamID)
	if p := r.agent.Prompts(); len(p) != 2 || p[0] != "From: carol\n\nlist the files" {
		t.Fatalf("prompts %q", p)
	}
	if n := r.agent.Sessions(); n != 1 {
		t.Fatalf("%d sessions, want the chat's one", n)
	}
	info, err := os.Stat(bot.WorkspaceDir(cfg.WorkspaceRoot, "group:chat1"))
	if err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Fatalf("workspace: %v %v", info, err)
	}
}

func TestStripMention(t *testing.T) {
	for _, c := range []struct{ in, bot, want string }{
		{"@wecodex hello", "wecodex", "hello"},
		{"  @wecodex   hello  @bob ", "wecodex", "hello  @bob"},
		{"@wecodex", "wecodex", ""},
		{"@wecodexbot hello", "wecodex", "@wecodexbot hello"},
		{"@other hi", "wecodex", "@other hi"},
		{"@any hi", "", "hi"},
		{"@机器人 你好", "机器人", "你好"},
		{"hello @wecodex", "wecodex", "hello @wecodex"},
	} {
		if got := bot.StripMention(c.in, c.bot); got != c.want {
			t.Errorf("StripMention(%q, %q) = %q, want %q", c.in, c.bot, got, c.want)
		}
	}
}

func TestWorkspaceDir(t *testing.T) {
	for _, c := range []struct{ conv, want string }{
		{"alice", "/w/alice"},
		{"wrk-Chat_01.x", "/w/wrk-Chat_01.x"},
		// Conversation keys: the ':' is replaced and the hash keeps the
		// 1:1 chat and the group named alike apart.
		{"single:alice", "/w/single_alice-a8b1c16b24f8"},
		{"group:alice", "/w/group_alice-74e3a1107fac"},
	} {
		if got := bot.WorkspaceDir("/w", c.conv); got != c.want {
			t.Errorf("WorkspaceDir(%q) = %q, want %q", c.conv, got, c.want)
		}
	}
	seen := map[string]string{}
	for _, conv := range []string{"..", "../etc", "a/b", "a_b", "a b", "", ".hidden", "张三", strings.Repeat("x", 100),
		"single:alice", "group:alice", "single_alice", "single:../etc", "group:" + strings.Repeat("y", 100)} {
		got := bot.WorkspaceDir("/w", conv)
		if filepath.Dir(got) != "/w" || strings.HasPrefix(filepath.Base(got), ".") {
			t.Errorf("WorkspaceDir(%q) = %q escapes or hides in the root", conv, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q share %q", conv, other, got)
		}
		seen[got] = conv
	}
}
