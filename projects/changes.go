package projects

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotGit is the answer of Changes and Reset in a Path project: its
// conversations share a checkout, so none has changes of its own.
var ErrNotGit = errors.New("not a git project")

// FileChange is one file a conversation changed against its base.
type FileChange struct {
	Path string
	// Added and Deleted count lines; Binary is set when git counts none.
	Added, Deleted int
	Binary         bool
	// New is set for a file git does not track yet (created, not added).
	New bool
}

// Changes are what a conversation changed in its worktree against the
// commit its branch was made from: committed on its branch, staged, or
// only in the worktree.
type Changes struct {
	Branch, Base string
	Files        []FileChange
	// Patch is the unified diff of the tracked files, then each new file's
	// text as added lines.
	Patch string
}

// Changes reports what the conversation changed in project name. A
// conversation with no worktree (it never worked there, or Cleanup
// removed it and its branch has no commits) has none.
func (r *Registry) Changes(ctx context.Context, name, conversation string) (Changes, error) {
	p, w, ok, err := r.existingWorktree(name, conversation)
	if err != nil || !ok {
		return Changes{Branch: w.Branch}, err
	}
	c := Changes{Branch: w.Branch}
	c.Base, err = r.git(ctx, "", "--git-dir", w.GitDir, "config", "--get", baseKey)
	if err != nil {
		return c, fmt.Errorf("project %s: read the base of %s: %w", p.Name, w.Branch, err)
	}
	numstat, err := r.git(ctx, w.Dir, "diff", "--numstat", c.Base)
	if err != nil {
		return c, fmt.Errorf("project %s: diff %s: %w", p.Name, w.Branch, err)
	}
	c.Files = parseNumstat(numstat)
	if c.Patch, err = r.git(ctx, w.Dir, "diff", c.Base); err != nil {
		return c, fmt.Errorf("project %s: diff %s: %w", p.Name, w.Branch, err)
	}
	untracked, err := r.git(ctx, w.Dir, "ls-files", "--others", "--exclude-standard")
	if err != nil {
		return c, fmt.Errorf("project %s: list new files of %s: %w", p.Name, w.Branch, err)
	}
	for _, path := range splitLines(untracked) {
		f, patch := newFile(w.Dir, path)
		c.Files = append(c.Files, f)
		c.Patch += patch
	}
	return c, nil
}

// Reset discards what the conversation changed in project name: its
// worktree and branch go back to the commit the branch was made from, and
// files git does not track are removed (what the worktree ignores, the
// chat's attachments among them, stays).
func (r *Registry) Reset(ctx context.Context, name, conversation string) error {
	p, w, ok, err := r.existingWorktree(name, conversation)
	if err != nil || !ok {
		return err
	}
	release, err := lockFile(ctx, r.worktreeLock(p))
	if err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	defer release()
	base, err := r.git(ctx, "", "--git-dir", w.GitDir, "config", "--get", baseKey)
	if err != nil {
		return fmt.Errorf("project %s: read the base of %s: %w", p.Name, w.Branch, err)
	}
	if _, err := r.git(ctx, w.Dir, "reset", "--quiet", "--hard", base); err != nil {
		return fmt.Errorf("project %s: reset %s: %w", p.Name, w.Branch, err)
	}
	if _, err := r.git(ctx, w.Dir, "clean", "--quiet", "-d", "--force"); err != nil {
		return fmt.Errorf("project %s: clean %s: %w", p.Name, w.Branch, err)
	}
	r.log.Info("worktree reset to its base", "project", p.Name, "branch", w.Branch, "base", base)
	return nil
}

// existingWorktree is the conversation's worktree in project name, ok
// false when it has none on this server.
func (r *Registry) existingWorktree(name, conversation string) (Project, Workspace, bool, error) {
	p, found := r.Lookup(name)
	if !found {
		return p, Workspace{}, false, fmt.Errorf("no project %q", name)
	}
	if p.Git == "" {
		return p, Workspace{}, false, ErrNotGit
	}
	w := r.layout(p, ConversationID(conversation))
	ok := present(filepath.Join(w.Dir, ".git")) && present(filepath.Join(w.GitDir, "HEAD"))
	return p, w, ok, nil
}

// parseNumstat reads `git diff --numstat`: "added<TAB>deleted<TAB>path",
// "-" for both counts of a binary file.
func parseNumstat(out string) []FileChange {
	var files []FileChange
	for _, l := range splitLines(out) {
		parts := strings.SplitN(l, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		f := FileChange{Path: parts[2]}
		if parts[0] == "-" {
			f.Binary = true
		} else {
			f.Added, _ = strconv.Atoi(parts[0])
			f.Deleted, _ = strconv.Atoi(parts[1])
		}
		files = append(files, f)
	}
	return files
}

// newFile is an untracked file as a change: its lines counted as added,
// and as a patch of added lines (binary files only named).
func newFile(dir, path string) (FileChange, string) {
	f := FileChange{Path: path, New: true}
	data, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil || strings.ContainsRune(string(data), 0) {
		f.Binary = true
		return f, fmt.Sprintf("\nnew file %s (binary)\n", path)
	}
	lines := splitLines(strings.TrimSuffix(string(data), "\n"))
	if len(data) > 0 && len(lines) == 0 {
		lines = []string{""}
	}
	f.Added = len(lines)
	var b strings.Builder
	fmt.Fprintf(&b, "\n--- /dev/null\n+++ b/%s\n", path)
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return f, b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
