package retention_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/retention"
	"github.com/wecodex/wecodex/store"
)

// scriptedThread runs one turn of the real Codex in a new thread and
// returns the agent and the thread as thread/list reports it.
func scriptedThread(t *testing.T) (*codex.Agent, codex.StoredThread) {
	h := codextest.Start(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted."))))
	a := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv()})
	t.Cleanup(func() { _ = a.Close() })
	id, err := a.NewSession(t.Context(), h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(t.Context(), id, acpbridge.TextPrompt("the numbers are 4711"), nopSink{}); err != nil {
		t.Fatal(err)
	}
	th, ok := stored(t, a, string(id))
	if !ok {
		t.Fatalf("thread/list has no %s", id)
	}
	return a, th
}

func stored(t *testing.T, a *codex.Agent, id string) (codex.StoredThread, bool) {
	threads, err := a.StoredThreads(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(threads, func(s codex.StoredThread) bool { return s.ID == id })
	if i < 0 {
		return codex.StoredThread{}, false
	}
	return threads[i], true
}

// writeAged writes a file and dates its modification at.
func writeAged(t *testing.T, path string, at time.Time) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// A sweep removes exactly what is past its age: the thread idle past
// retention.threads is gone from thread/list and its rollout from disk,
// and its conversation forgets it; an old attachment goes, a new one and a
// project's stay; audit records older than retention.audit are trimmed.
// A second sweep finds nothing left, as a second replica's would.
func TestSweepRemovesWhatIsPastItsAge(t *testing.T) {
	a, th := scriptedThread(t)
	db := testenv.OpenStore(t, testenv.Prefix(t, "retention"))
	convs := store.NewConversations(db)
	ctx := t.Context()
	if err := convs.SaveConversation(ctx, "single:bob", th.ID, th.Cwd); err != nil {
		t.Fatal(err)
	}
	if err := convs.TouchConversation(ctx, "single:bob", "bob", time.Now()); err != nil {
		t.Fatal(err)
	}
	lists := store.NewThreads(db)
	for _, id := range []string{"an-older-thread-kept", th.ID} {
		if err := lists.RecordThread(ctx, "single:bob", id, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	root := t.TempDir()
	bobs := bot.WorkspaceDir(root, "single:bob")
	now := time.Now()
	writeAged(t, filepath.Join(bobs, "attachments", "old.png"), now.Add(-3*time.Hour))
	writeAged(t, filepath.Join(bobs, "attachments", "new.png"), now)
	writeAged(t, filepath.Join(bobs, "report.md"), now.Add(-3*time.Hour))
	writeAged(t, filepath.Join(root, ".projects", "p", "id", "p", "attachments", "repo.png"), now.Add(-3*time.Hour))

	audit := store.NewAudit(db)
	rdb := testenv.Redis(t)
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: db.Keys().AuditStream(), ID: "1000-0", Values: []any{"r", "{}"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := audit.AppendAudit(ctx, []byte("{}"), 0); err != nil {
		t.Fatal(err)
	}

	sweeper := func(at time.Time) *retention.Sweeper {
		return retention.New(retention.Options{
			Threads: time.Hour, Attachments: time.Hour, Audit: time.Hour,
			Agent: a, Conversations: convs, Lists: lists, WorkspaceRoot: root, Stream: audit,
			Now: func() time.Time { return at },
		})
	}
	r, err := sweeper(now).Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 0 || !slices.Equal(r.Attachments, []string{filepath.Base(bobs) + "/attachments/old.png"}) || r.AuditRecords != 1 {
		t.Errorf("sweep now removed %+v; want only the old attachment and the old audit record", r)
	}
	if _, ok := stored(t, a, th.ID); !ok {
		t.Fatalf("a thread idle for less than retention.threads was deleted")
	}

	r, err = sweeper(now.Add(2 * time.Hour)).Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Threads, []string{th.ID}) {
		t.Errorf("sweep two hours on deleted threads %v; want [%s]", r.Threads, th.ID)
	}
	if _, ok := stored(t, a, th.ID); ok {
		t.Errorf("thread %s idle past retention.threads is still on thread/list", th.ID)
	}
	if _, err := os.Stat(th.Path); !os.IsNotExist(err) {
		t.Errorf("rollout %s of the deleted thread: %v; want it gone", th.Path, err)
	}
	if sid, _, err := convs.Conversation(ctx, "single:bob"); err != nil || sid != "" {
		t.Errorf("single:bob still runs in session %q (%v); want it forgotten", sid, err)
	}
	if used, _, _, err := lists.UsedThreads(ctx, "single:bob"); err != nil || !slices.Equal(used, []string{"an-older-thread-kept"}) {
		t.Errorf("/sessions of single:bob lists %v (%v); want only the thread retention did not delete", used, err)
	}
	for _, kept := range []string{filepath.Join(bobs, "report.md"), filepath.Join(root, ".projects", "p", "id", "p", "attachments", "repo.png")} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s is no attachment of a conversation's workspace and must stay: %v", kept, err)
		}
	}
	if n, err := rdb.XLen(ctx, db.Keys().AuditStream()).Result(); err != nil || n != 0 {
		t.Errorf("audit stream holds %d records (%v) after its age passed; want 0", n, err)
	}

	r, err = sweeper(now.Add(2 * time.Hour)).Sweep(ctx)
	if err != nil || len(r.Threads)+len(r.Attachments) != 0 || r.AuditRecords != 0 {
		t.Errorf("a second sweep removed %+v (%v); want nothing left to remove", r, err)
	}
}

func TestIntervalIsATenthOfTheShortestAge(t *testing.T) {
	for _, c := range []struct {
		ages []time.Duration
		want time.Duration
	}{
		{[]time.Duration{90 * 24 * time.Hour}, time.Hour},
		{[]time.Duration{0, 5 * time.Minute, 90 * 24 * time.Hour}, 30 * time.Second},
		{[]time.Duration{2 * time.Second}, time.Second},
		{nil, time.Hour},
	} {
		if got := retention.Interval(c.ages...); got != c.want {
			t.Errorf("Interval(%v) = %s, want %s", c.ages, got, c.want)
		}
	}
}
