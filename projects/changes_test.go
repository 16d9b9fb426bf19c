package projects

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Changes are what the conversation committed, edited and created against
// its base, the chat's attachments not among them; Reset puts the worktree
// and the branch back at the base and keeps the attachments. A path
// project has neither.
func TestChangesAndResetLeaveTheAttachmentsAlone(t *testing.T) {
	bare, head := remote(t)
	dir := t.TempDir()
	r := registry(t, "", Project{Name: "api", Git: bare, Ref: "main"}, Project{Name: "web", Path: dir})
	w, err := r.Workspace(ctxT(t), "api", "single:alice")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(w.Dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.Dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("c.txt", "committed\n")
	gitT(t, w.Dir, "add", "c.txt")
	gitT(t, w.Dir, "commit", "--quiet", "-m", "c")
	write("README.md", "hello\nedited\n")
	write("new.txt", "one\ntwo\n")
	write("attachments/pic.png", "\x89PNG\x00")

	c, err := r.Changes(ctxT(t), "api", "single:alice")
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{{Path: "README.md", Added: 1}, {Path: "c.txt", Added: 1}, {Path: "new.txt", Added: 2, New: true}}
	if c.Base != head || c.Branch != w.Branch || !reflect.DeepEqual(c.Files, want) {
		t.Fatalf("Changes = %+v; want base %s, branch %s, files %+v", c, head, w.Branch, want)
	}

	if err := r.Reset(ctxT(t), "api", "single:alice"); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, w.Dir, "status", "--porcelain"); got != "" {
		t.Errorf("after Reset git status %q, want clean", got)
	}
	if got := gitT(t, w.Dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("after Reset the branch is at %s, want the base %s", got, head)
	}
	if got, err := os.ReadFile(filepath.Join(w.Dir, "attachments", "pic.png")); err != nil || string(got) != "\x89PNG\x00" {
		t.Errorf("after Reset the attachment is %q, %v; want it kept", got, err)
	}
	if c, err := r.Changes(ctxT(t), "api", "single:alice"); err != nil || len(c.Files) != 0 || c.Patch != "" {
		t.Errorf("Changes after Reset = %+v, %v; want none", c, err)
	}
	if _, err := r.Changes(ctxT(t), "web", "single:alice"); !errors.Is(err, ErrNotGit) {
		t.Errorf("Changes in a path project: %v, want ErrNotGit", err)
	}
	if c, err := r.Changes(ctxT(t), "api", "single:nobody"); err != nil || len(c.Files) != 0 {
		t.Errorf("Changes of a conversation that never worked there = %+v, %v; want none", c, err)
	}
}
