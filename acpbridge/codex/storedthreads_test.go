package codex

import (
	"os"
	"slices"
	"testing"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// A thread the real Codex made is listed with its rollout, and once
// deleted it is gone from thread/list and its rollout from disk.
func TestDeleteThreadRemovesItFromListAndDisk(t *testing.T) {
	h := codextest.Start(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Noted."))))
	a := New(Options{Bin: h.Bin, Env: h.CodexEnv()})
	t.Cleanup(func() { _ = a.Close() })
	ctx := t.Context()
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt("remember 4711"), &recorder{}); err != nil {
		t.Fatal(err)
	}
	threads, err := a.StoredThreads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(threads, func(s StoredThread) bool { return s.ID == string(id) })
	if i < 0 {
		t.Fatalf("thread/list has no %s: %+v", id, threads)
	}
	th := threads[i]
	if th.Cwd != h.Workspace || th.Active || th.Archived || th.Updated.IsZero() {
		t.Errorf("listed %+v; want cwd %s, idle, not archived, with its update time", th, h.Workspace)
	}
	if _, err := os.Stat(th.Path); err != nil {
		t.Fatalf("rollout of the listed thread: %v", err)
	}
	if err := a.DeleteThread(ctx, string(id)); err != nil {
		t.Fatal(err)
	}
	threads, err = a.StoredThreads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(threads, func(s StoredThread) bool { return s.ID == string(id) }) {
		t.Errorf("thread/list still has %s after thread/delete", id)
	}
	if _, err := os.Stat(th.Path); !os.IsNotExist(err) {
		t.Errorf("rollout %s after thread/delete: %v; want it gone", th.Path, err)
	}
}
