package projects

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitT runs git in dir for a test, failing it on error.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// remote makes a bare repository holding one commit on main with
// README.md, and returns its path and that commit.
func remote(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	bare := filepath.Join(dir, "remote.git")
	work := filepath.Join(dir, "work")
	gitT(t, dir, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	gitT(t, dir, "init", "--quiet", "--initial-branch=main", work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitT(t, work, "add", "README.md")
	gitT(t, work, "commit", "--quiet", "-m", "first")
	gitT(t, work, "push", "--quiet", bare, "main")
	return bare, gitT(t, work, "rev-parse", "HEAD")
}

// registry is a Registry over list with its own state and workspace
// directories (state may be shared by passing one).
func registry(t *testing.T, state string, list ...Project) *Registry {
	t.Helper()
	if state == "" {
		state = t.TempDir()
	}
	r, err := New(list, Options{StateDir: state, WorkspaceRoot: filepath.Join(t.TempDir(), "workspaces")})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// clock is a settable Now.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func ctxT(t *testing.T) context.Context { return t.Context() }
