package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// A conversation working in a git project's worktree is listed with that
// project and its branch, and the command that continues it runs there;
// one with no thread says so instead of a command.
func TestSessionDescribesProjectAndBranch(t *testing.T) {
	dir := t.TempDir()
	bare, work := filepath.Join(dir, "remote.git"), filepath.Join(dir, "work")
	for _, args := range [][]string{
		{"init", "--quiet", "--bare", "--initial-branch=main", bare},
		{"init", "--quiet", "--initial-branch=main", work},
		{"-C", work, "commit", "--quiet", "--allow-empty", "-m", "first"},
		{"-C", work, "push", "--quiet", bare, "main"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	reg, err := projects.New([]projects.Project{{Name: "api", Git: bare, Ref: "main", Chats: []string{"wrkChat1"}}},
		projects.Options{StateDir: t.TempDir(), WorkspaceRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := reg.Workspace(t.Context(), "api", "group:wrkChat1")
	if err != nil {
		t.Fatal(err)
	}
	used := time.Date(2026, 12, 2, 4, 5, 6, 0, time.UTC)
	term := terminal{home: "/srv/codex home", bin: "codex"}
	s := sessionOf(store.ConversationRecord{Key: "group:wrkChat1", Session: "th-1", Cwd: w.Dir, User: "bob", Used: used}, reg)
	want := "group:wrkChat1\n" +
		"  project:  api\n" +
		"  worktree: " + w.Dir + "\n" +
		"  branch:   " + projects.Branch("group:wrkChat1") + "\n" +
		"  thread:   th-1\n" +
		"  last use: 2026-12-02T04:05:06Z by bob\n" +
		"  continue: cd " + w.Dir + " && CODEX_HOME='/srv/codex home' codex resume th-1\n"
	if got := s.describe(term); got != want {
		t.Fatalf("described\n%s\nwant\n%s", got, want)
	}
	none := sessionOf(store.ConversationRecord{Key: "single:alice", Cwd: "/w/alice"}, reg)
	want = "single:alice\n  project:  -\n  worktree: /w/alice\n  branch:   -\n  thread:   -\n  last use: -\n" +
		"  continue: no thread yet (or /new dropped it): the next message starts one\n"
	if got := none.describe(term); got != want {
		t.Fatalf("described\n%s\nwant\n%s", got, want)
	}
}
