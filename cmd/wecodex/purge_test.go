package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// purgeWorld is bob's and alice's content in every place purge looks: a
// real Codex thread each in their conversation's workspace (bob has an
// older one too, left by /new), their conversations' Redis state, an
// attachment in bob's workspace and audit records in the stream and
// audit.file.
type purgeWorld struct {
	cfg, file, root string
	prefix          string
	db              *store.DB
	agent           *codex.Agent
	h               *codextest.Harness
	bobThreads      []string
	aliceThread     string
	bobRollouts     []string
}

func newPurgeWorld(t *testing.T) *purgeWorld {
	h := codextest.Start(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted.")),
	))
	w := &purgeWorld{root: t.TempDir(), prefix: testenv.Prefix(t, "purge"), h: h}
	w.file = filepath.Join(t.TempDir(), "audit.jsonl")
	w.db = testenv.OpenStore(t, w.prefix)
	w.agent = codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv()})
	t.Cleanup(func() { _ = w.agent.Close() })
	ctx := t.Context()
	convs := store.NewConversations(w.db)
	thread := func(conv, user, dir string) string {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		id, err := w.agent.NewSession(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.agent.Prompt(ctx, id, acpbridge.TextPrompt("my secret plan is 4711"), nopSink{}); err != nil {
			t.Fatal(err)
		}
		if err := convs.SaveConversation(ctx, conv, string(id), dir); err != nil {
			t.Fatal(err)
		}
		if err := convs.TouchConversation(ctx, conv, user, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := store.NewThreads(w.db).RecordThread(ctx, conv, string(id), nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		return string(id)
	}
	own := func(conv string) string {
		dir, err := filepath.Abs(bot.WorkspaceDir(w.root, conv))
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	// bob's first thread worked in a project's directory: only the
	// store's list of his threads names it.
	w.bobThreads = []string{thread("single:bob", "bob", t.TempDir()), thread("single:bob", "bob", own("single:bob"))}
	w.aliceThread = thread("single:alice", "alice", own("single:alice"))
	threads, err := w.agent.StoredThreads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range threads {
		if slices.Contains(w.bobThreads, th.ID) {
			w.bobRollouts = append(w.bobRollouts, th.Path)
		}
	}
	if len(w.bobRollouts) != 2 {
		t.Fatalf("thread/list shows %d of bob's 2 threads: %+v", len(w.bobRollouts), threads)
	}
	writeFile(t, filepath.Join(bot.WorkspaceDir(w.root, "single:bob"), "attachments", "photo.png"), "\x89PNG")
	if err := testenv.Redis(t).Set(ctx, w.db.Keys().Conv("single:bob").Rest(), "the rest of bob's answer", 0).Err(); err != nil {
		t.Fatal(err)
	}
	w.writeAudit(t)
	opt := testenv.RedisOptions(t)
	w.cfg = filepath.Join(t.TempDir(), "wecodex.yaml")
	yaml := fmt.Sprintf("redis:\n  addr: %q\n  password: %q\n  db: %d\n  prefix: %q\naudit:\n  redis: true\n  file: %q\nagent:\n  workspace_root: %q\n  codex:\n    bin: %q\n    home: %q\n",
		opt.Addr, opt.Password, opt.DB, w.prefix, w.file, w.root, h.Bin, h.Home)
	if err := os.WriteFile(w.cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// writeAudit writes bob's records in his chat and in a group, and
// alice's in the group.
func (w *purgeWorld) writeAudit(t *testing.T) {
	l, err := audit.Open(audit.Options{Replica: "replica-a", Seq: store.NewAudit(w.db), Stream: store.NewAudit(w.db), File: w.file, MaxLen: 1000, IncludeText: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []bot.AuditEvent{
		{Kind: bot.AuditMessage, User: "bob", Conversation: "single:bob", Channel: "aibot", MsgID: "m1", Length: 22, Text: "my secret plan is 4711"},
		{Kind: bot.AuditTurnStarted, User: "bob", Conversation: "single:bob", Channel: "aibot", Turn: "t1"},
		{Kind: bot.AuditMessage, User: "alice", Conversation: "group:team", Channel: "aibot", MsgID: "m2", Length: 5, Text: "hello"},
		{Kind: bot.AuditMessage, User: "bob", Conversation: "group:team", Channel: "aibot", MsgID: "m3", Length: 7, Text: "bob hi!"},
	} {
		l.Audit(context.Background(), e)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// `wecodex purge --user bob` leaves nothing of bob's: his conversation's
// Redis keys, both his Codex threads (gone from thread/list and their
// rollouts from disk), his workspace with its attachment, and his audit
// records in the stream and the file; alice's thread, conversation and
// record stay, and one admin record says the purge ran.
func TestPurgeLeavesNothingOfTheUser(t *testing.T) {
	w := newPurgeWorld(t)
	// As serve does agent.codex.idle_unload after a turn: Codex lets no
	// other process delete a thread it holds.
	w.release(t)
	out := runCLI(t, "purge", "--config", w.cfg, "--user", "bob")
	bobs, _ := filepath.Abs(bot.WorkspaceDir(w.root, "single:bob"))
	for _, want := range []string{
		"purged user bob\n", "conversations: 1 (", "  single:bob\n", "codex threads: 2\n",
		"  " + w.bobThreads[0] + "\n", "  " + w.bobThreads[1] + "\n", "workspaces: 1\n", "  " + bobs + "\n",
		"audit records: 3 from the stream, 3 lines from audit.file\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("purge printed\n%s\nwithout %q", out, want)
		}
	}

	ctx := t.Context()
	threads, err := w.agent.StoredThreads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, th := range threads {
		ids = append(ids, th.ID)
	}
	if !slices.Equal(ids, []string{w.aliceThread}) {
		t.Errorf("thread/list after the purge: %v; want only alice's %s", ids, w.aliceThread)
	}
	for _, p := range w.bobRollouts {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("bob's rollout %s: %v; want it gone", p, err)
		}
	}
	if _, err := os.Stat(bobs); !os.IsNotExist(err) {
		t.Errorf("bob's workspace: %v; want it gone", err)
	}
	keys, err := testenv.Redis(t).Keys(ctx, w.prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(k, "bob") {
			t.Errorf("Redis still holds %s", k)
		}
	}
	records, err := store.NewConversations(w.db).ListConversations(ctx)
	if err != nil || len(records) != 1 || records[0].Key != "single:alice" {
		t.Errorf("conversations after the purge: %+v (%v); want only single:alice", records, err)
	}

	want := []string{
		`{"kind":"message","user":"alice","conversation":"group:team","channel":"aibot","replica":"replica-a","seq":1,"msgid":"m2","length":5,"text":"hello"}`,
		`{"kind":"admin","user":"` + operator() + `","conversation":"","channel":"cli","replica":"purge@` + hostname(t) + `","seq":1,"command":"wecodex purge --user bob","detail":"removed 1 conversations, 2 threads, 1 workspaces, 3 audit records from the stream, 3 lines from audit.file"}`,
	}
	stream := withoutTimes(runCLI(t, "audit", "--config", w.cfg))
	if strings.Join(stream, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit stream after the purge:\n%s\nwant\n%s", strings.Join(stream, "\n"), strings.Join(want, "\n"))
	}
	b, err := os.ReadFile(w.file)
	if err != nil {
		t.Fatal(err)
	}
	if got := withoutTimes(string(b)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit.file after the purge:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(string(b), "4711") {
		t.Errorf("audit.file still holds bob's text:\n%s", b)
	}
}

// release closes the agent that made the threads and opens another on the
// same CODEX_HOME, which holds none of them.
func (w *purgeWorld) release(t *testing.T) {
	_ = w.agent.Close()
	w.agent = codex.New(codex.Options{Bin: w.h.Bin, Env: w.h.CodexEnv()})
	t.Cleanup(func() { _ = w.agent.Close() })
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A thread a running replica still holds cannot be deleted: purge says so,
// exits 1 and keeps the conversation, and a purge run once the replica let
// go of it finishes the work. Each run leaves its admin record.
func TestPurgeOfAHeldThreadCanBeRunAgain(t *testing.T) {
	w := newPurgeWorld(t)
	var out, errOut strings.Builder
	if code := run([]string{"purge", "--config", w.cfg, "--user", "bob"}, nil, &out, &errOut); code != cli.ExitError {
		t.Fatalf("purge with bob's threads held: exit %d, want %d\n%s", code, cli.ExitError, errOut.String())
	}
	if !strings.Contains(errOut.String(), "already has an active writer") || !strings.Contains(errOut.String(), "purge again") {
		t.Errorf("purge's error %q does not say the thread is held and to purge again", errOut.String())
	}
	records, err := store.NewConversations(w.db).ListConversations(t.Context())
	if err != nil || len(records) != 2 {
		t.Fatalf("conversations after the failed purge: %+v (%v); want both kept", records, err)
	}
	w.release(t)
	second := runCLI(t, "purge", "--config", w.cfg, "--user", "bob")
	if !strings.Contains(second, "conversations: 1 (") || !strings.Contains(second, "codex threads: 2\n") {
		t.Errorf("second purge printed\n%s\nwant bob's conversation and both his threads", second)
	}
	admin := withoutTimes(runCLI(t, "audit", "--config", w.cfg, "--kind", "admin"))
	if len(admin) != 2 || !strings.Contains(admin[0], "; then failed: purge threads") || strings.Contains(admin[1], "failed") {
		t.Errorf("admin records:\n%s\nwant one per run, the first saying it failed", strings.Join(admin, "\n"))
	}
}
