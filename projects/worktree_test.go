package projects

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// Two conversations on one git project each change the same file: each
// worktree holds its own change alone, on its own branch made from the ref.
func TestEachConversationWorksOnItsOwnBranch(t *testing.T) {
	bare, head := remote(t)
	r := registry(t, "", Project{Name: "api", Git: bare, Ref: "main"})
	ws := map[string]Workspace{}
	for _, conv := range []string{"group:wrkChat1", "single:alice"} {
		w, err := r.Workspace(ctxT(t), "api", conv)
		if err != nil {
			t.Fatal(err)
		}
		if w.Base != head || w.Branch != Branch(conv) {
			t.Fatalf("%s: base %s branch %s; want %s and %s", conv, w.Base, w.Branch, head, Branch(conv))
		}
		if err := os.WriteFile(filepath.Join(w.Dir, "README.md"), []byte("from "+conv+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ws[conv] = w
	}
	for conv, w := range ws {
		got, err := os.ReadFile(filepath.Join(w.Dir, "README.md"))
		if err != nil || string(got) != "from "+conv+"\n" {
			t.Errorf("%s's README.md = %q, %v", conv, got, err)
		}
		if st := gitT(t, w.Dir, "status", "--porcelain"); st != "M README.md" {
			t.Errorf("%s: status %q; want only its README.md change", conv, st)
		}
		if b := gitT(t, w.Dir, "branch", "--show-current"); b != w.Branch {
			t.Errorf("%s: on %q; want %q", conv, b, w.Branch)
		}
		if diff, err := r.Git(ctxT(t), w, "diff", "--numstat", w.Base); err != nil || diff != "1\t1\tREADME.md" {
			t.Errorf("%s: Git diff --numstat = %q, %v", conv, diff, err)
		}
		// The workspace again is the same one, change and all.
		again, err := r.Workspace(ctxT(t), "api", conv)
		if err != nil || again.Dir != w.Dir || again.Base != head {
			t.Errorf("%s again: %+v, %v", conv, again, err)
		}
		fw, p, ok := r.ForDir(w.Dir)
		if !ok || p.Name != "api" || fw.GitDir != w.GitDir || !slices.Equal(fw.Write, w.Write) || fw.Tmp != w.Tmp {
			t.Errorf("ForDir(%s) = %+v, %s, %v; want %+v", w.Dir, fw, p.Name, ok, w)
		}
	}
	if ws["group:wrkChat1"].GitDir == ws["single:alice"].GitDir || ws["group:wrkChat1"].Tmp == ws["single:alice"].Tmp {
		t.Error("two conversations share a git directory or a tmp")
	}
}

// Two replicas sharing a state directory, each with turns for several
// conversations at once, clone the same project: one clone, every
// worktree made, no error.
func TestTwoReplicasCloneAtOnceWithoutARace(t *testing.T) {
	bare, head := remote(t)
	state := t.TempDir()
	p := Project{Name: "api", Git: bare}
	replicas := []*Registry{registry(t, state, p), registry(t, state, p)}
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			w, err := replicas[i%2].Workspace(ctxT(t), "api", fmt.Sprintf("single:u%d", i/2))
			if err == nil && w.Base != head {
				err = fmt.Errorf("base %s, want %s", w.Base, head)
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(state, "projects", "api", ".clone-*"))
	if len(leftovers) != 0 {
		t.Errorf("half-made clones left: %v", leftovers)
	}
	if got := gitT(t, state, "--git-dir", filepath.Join(state, "projects", "api", "clone.git"), "rev-parse", "refs/remotes/origin/HEAD"); got != head {
		t.Errorf("clone's origin/HEAD = %s", got)
	}
}

// A worktree idle past IdleCleanup is removed; its branch, and the commit
// on it, stay, and the next turn checks them out again. One idle as long
// whose conversation a turn still holds stays.
func TestIdleWorktreesAreRemovedAndTheirBranchStays(t *testing.T) {
	bare, _ := remote(t)
	clk := &clock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	r, err := New([]Project{{Name: "api", Git: bare, Ref: "main"}}, Options{
		StateDir: t.TempDir(), WorkspaceRoot: t.TempDir(), IdleCleanup: time.Minute, Now: clk.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	idle, err := r.Workspace(ctxT(t), "api", "single:idle")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(idle.Dir, "new.txt"), []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitT(t, idle.Dir, "add", "new.txt")
	gitT(t, idle.Dir, "commit", "--quiet", "-m", "work")
	running, err := r.Workspace(ctxT(t), "api", "single:running")
	if err != nil {
		t.Fatal(err)
	}
	clk.now = clk.now.Add(2 * time.Minute)
	busy, err := r.Workspace(ctxT(t), "api", "single:busy")
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	inUse := func(_ context.Context, conv string) (bool, error) {
		asked = append(asked, conv)
		return conv == "single:running", nil
	}
	removed, err := r.Cleanup(ctxT(t), inUse)
	if err != nil || !slices.Equal(removed, []string{idle.Dir}) {
		t.Fatalf("Cleanup = %v, %v; want only %s", removed, err, idle.Dir)
	}
	if slices.Sort(asked); !slices.Equal(asked, []string{"single:idle", "single:running"}) {
		t.Errorf("Cleanup asked InUse about %q; want the two idle conversations by their keys", asked)
	}
	if present(idle.Dir) || present(idle.Tmp) || !present(busy.Dir) || !present(running.Dir) {
		t.Fatalf("after cleanup: idle %v tmp %v busy %v running %v", present(idle.Dir), present(idle.Tmp), present(busy.Dir), present(running.Dir))
	}
	if got := gitT(t, "", "--git-dir", idle.GitDir, "log", "-1", "--format=%s", idle.Branch); got != "work" {
		t.Fatalf("branch %s after cleanup: %q", idle.Branch, got)
	}
	back, err := r.Workspace(ctxT(t), "api", "single:idle")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(back.Dir, "new.txt")); err != nil || string(got) != "kept\n" || back.Base != idle.Base {
		t.Fatalf("worktree made again: new.txt %q, %v; base %s want %s", got, err, back.Base, idle.Base)
	}
}

// A conversation starting on a git project fetches it first: pushed after
// the clone was made, the ref's new commit is where the new conversation's
// branch starts, while one already working keeps its base. With the remote
// gone, a new conversation still starts, from the clone as it is.
func TestANewConversationStartsFromTheFetchedRef(t *testing.T) {
	bare, first := remote(t)
	r := registry(t, "", Project{Name: "api", Git: bare, Ref: "main"})
	if early, err := r.Workspace(ctxT(t), "api", "single:early"); err != nil || early.Base != first {
		t.Fatalf("the early conversation starts at %s (%v); want %s", early.Base, err, first)
	}
	work := filepath.Join(t.TempDir(), "work")
	gitT(t, "", "clone", "--quiet", bare, work)
	gitT(t, work, "commit", "--quiet", "--allow-empty", "-m", "second")
	gitT(t, work, "push", "--quiet", "origin", "main")
	second := gitT(t, work, "rev-parse", "HEAD")

	late, err := r.Workspace(ctxT(t), "api", "single:late")
	if err != nil || late.Base != second {
		t.Fatalf("the late conversation starts at %s (%v); want the pushed %s", late.Base, err, second)
	}
	again, err := r.Workspace(ctxT(t), "api", "single:early")
	if err != nil || again.Base != first || gitT(t, again.Dir, "log", "--format=%s") != "first" {
		t.Fatalf("the early conversation's base %s (%v); want it kept at %s", again.Base, err, first)
	}

	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	offline, err := r.Workspace(ctxT(t), "api", "single:offline")
	if err != nil || offline.Base != second {
		t.Fatalf("with the remote gone a new conversation starts at %s (%v); want the clone's %s", offline.Base, err, second)
	}
}
