package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// nopSink takes a turn's updates and declines what it asks.
type nopSink struct{}

func (nopSink) Update(acp.SessionUpdate) {}
func (nopSink) Notice(acpbridge.Notice)  {}
func (nopSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}

// codexHomeWithDefaultHistory is a scripted Codex home without the test
// harness's own history.persistence, so Codex's default (save-all) holds
// unless wecodex overrides it.
func codexHomeWithDefaultHistory(t *testing.T) *codextest.Harness {
	h := codextest.Start(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted."))))
	path := filepath.Join(h.Home, "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const harness = "[history]\npersistence = \"none\"\n"
	if !strings.Contains(string(b), harness) {
		t.Fatalf("the harness's config.toml has no %q to remove:\n%s", harness, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), harness, "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// historyAfterATurn runs one turn of the real Codex with the -c overrides
// serve gives it for retention and returns CODEX_HOME/history.jsonl ("" when
// Codex wrote none).
func historyAfterATurn(t *testing.T, r configs.RetentionConfig, prompt string) string {
	h := codexHomeWithDefaultHistory(t)
	a := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Config: withHistoryRetention(nil, r)})
	defer a.Close()
	ctx := t.Context()
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt(prompt), nopSink{}); err != nil {
		t.Fatal(err)
	}
	_ = a.Close() // Codex has written what it writes
	b, err := os.ReadFile(filepath.Join(h.Home, "history.jsonl"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// With the defaults no prompt reaches CODEX_HOME/history.jsonl: serve
// passes Codex history.persistence=none. (The 0.171.0 app-server writes no
// history for its turns even with save-all, its default; the TUI does, and
// `codex resume` of a conversation runs it on the same CODEX_HOME.) The key
// is Codex's own: the pinned Codex refuses to start on a bad value of it,
// so the override is read, not ignored.
func TestCodexHistoryIsOffByDefault(t *testing.T) {
	if got := withHistoryRetention(nil, configs.Default().Retention)["history.persistence"]; got != "none" {
		t.Fatalf("history.persistence override %q, want none", got)
	}
	if got := withHistoryRetention(nil, configs.RetentionConfig{CodexHistory: true})["history.persistence"]; got != "save-all" {
		t.Fatalf("with retention.codex_history the override is %q, want save-all", got)
	}
	if got := historyAfterATurn(t, configs.Default().Retention, "the quarterly numbers are 4711"); got != "" {
		t.Errorf("with the defaults history.jsonl holds:\n%s", got)
	}

	h := codexHomeWithDefaultHistory(t)
	a := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Config: map[string]string{"history.persistence": "bogus"}})
	defer a.Close()
	_, err := a.NewSession(t.Context(), h.Workspace)
	if err == nil || !strings.Contains(err.Error(), "codex app-server exited") {
		t.Errorf("Codex started with history.persistence=bogus (err %v); want it to refuse to start", err)
	}
}

// rollouts are the thread rollouts under a Codex home, archived ones too.
func rollouts(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"sessions", "archived_sessions"} {
		err := filepath.WalkDir(filepath.Join(home, dir), func(p string, d os.DirEntry, err error) error {
			if os.IsNotExist(err) {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				out = append(out, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A serve with retention.threads and retention.attachments of seconds
// sweeps on its own: once the conversation's thread has been idle past its
// age it is gone from thread/list and its rollout from disk, an attachment
// past its age is gone from the workspace, and the conversation's next
// message runs in a fresh thread.
func TestE2ERetentionSweepsWhileServing(t *testing.T) {
	e := newE2E(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted again.")),
	))
	e.extra = "retention:\n  threads: 3s\n  attachments: 3s\n"
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "remember 4711"})
	if err != nil {
		t.Fatal(err)
	}
	if last, _ := follow(t, ctx, b.sim, s.ID); last.Content != "Noted." {
		t.Fatalf("first answer %q", last.Content)
	}
	old := filepath.Join(bot.WorkspaceDir(e.workspace, "single:alice"), acpbridge.AttachmentsDir, "old.png")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("png"), 0o600); err != nil {
		t.Fatal(err)
	}

	b.logs.waitFor(t, ctx, "retention sweep", map[string]any{"threads": float64(1)})
	a := codex.New(codex.Options{Bin: e.h.Bin, Env: e.h.CodexEnv()})
	defer a.Close()
	if threads, err := a.StoredThreads(ctx); err != nil || len(threads) != 0 {
		t.Errorf("thread/list after the sweep: %+v (%v), want nothing", threads, err)
	}
	if rs := rollouts(t, e.h.Home); len(rs) != 0 {
		t.Errorf("rollouts after the sweep: %v, want none", rs)
	}
	for {
		if _, err := os.Stat(old); os.IsNotExist(err) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s is still there, past retention.attachments", old)
		case <-time.After(50 * time.Millisecond):
		}
	}

	s, err = b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "and now?"})
	if err != nil {
		t.Fatal(err)
	}
	if last, _ := follow(t, ctx, b.sim, s.ID); last.Content != "Noted again." {
		t.Fatalf("answer after the sweep %q, want a fresh thread's", last.Content)
	}
	if threads, err := a.StoredThreads(ctx); err != nil || len(threads) != 1 {
		t.Errorf("thread/list after the next message: %+v (%v), want its fresh thread", threads, err)
	}
}
