package projects

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Workspace is where one conversation works in one project.
type Workspace struct {
	// Project is the project's name.
	Project string
	// Dir is the working directory: the Path project's checkout, or the
	// conversation's worktree.
	Dir string
	// Tmp is the conversation's private temporary directory (a Path
	// project's conversations, sharing Dir, share it too).
	Tmp string
	// Branch is the conversation's branch, wecodex/<id>; "" for a Path
	// project.
	Branch string
	// Base is the commit the branch was made from (what /diff compares
	// with); "" for a Path project.
	Base string
	// GitDir is the conversation's own git directory (bare; its objects
	// fall back to the clone's), which holds the branch and, under
	// worktrees/<project>, the worktree's index and HEAD; "" for a Path
	// project.
	GitDir string
	// Write are the paths the conversation's commands may write: for a Git
	// project the conversation's own directory, which holds Dir, GitDir and
	// Tmp (not Dir alone: see layout.go); for a Path project Dir and Tmp.
	// Read are paths they may read and never write, even inside Write: the
	// clone's objects, and what git run outside the sandbox obeys (the
	// worktree's .git pointer, GitDir's config and hooks, the worktree's
	// commondir and gitdir files). A sandbox must give exactly these, and
	// must not list Dir itself as writable: Codex would then make GitDir's
	// worktree directory read-only, and git add could not write its index.
	// Nothing here is another conversation's.
	Write []string
	Read  []string
}

// baseKey records, in a conversation's git directory, the commit its
// branch was made from; conversationKey the conversation's key, which
// Cleanup asks InUse about (the directory's name is only its hash). Both
// sit in the git directory's config, which the conversation's commands
// cannot write.
const (
	baseKey         = "wecodex.base"
	conversationKey = "wecodex.conversation"
)

// usedFile's time is when the conversation last started a turn in its
// worktree (Cleanup reads it).
const usedFile = "wecodex-used"

// Workspace returns the working directory of the conversation (its key,
// as the engine stores it) in the project called name, making it when it
// is missing: for a Git project the clone (fetched now when this call makes
// the worktree: a conversation starts on the project), the conversation's
// git directory, and its worktree on its branch, made from the project's
// ref when the branch is new and checked out again when Cleanup removed the
// worktree. A Path project's directory must exist.
func (r *Registry) Workspace(ctx context.Context, name, conversation string) (Workspace, error) {
	p, ok := r.Lookup(name)
	if !ok {
		return Workspace{}, fmt.Errorf("no project %q", name)
	}
	w := r.layout(p, ConversationID(conversation))
	if p.Git == "" {
		if fi, err := os.Stat(w.Dir); err != nil || !fi.IsDir() {
			return Workspace{}, fmt.Errorf("project %s: path %s is not a directory on this server", p.Name, w.Dir)
		}
		if err := os.MkdirAll(w.Tmp, 0o700); err != nil {
			return Workspace{}, fmt.Errorf("project %s: %w", p.Name, err)
		}
		return w, nil
	}
	if err := r.ensureWorktree(ctx, p, conversation, &w); err != nil {
		return Workspace{}, err
	}
	now := r.opts.Now()
	if err := os.Chtimes(filepath.Join(w.GitDir, usedFile), now, now); err != nil {
		return Workspace{}, fmt.Errorf("project %s: mark worktree used: %w", p.Name, err)
	}
	return w, nil
}

// ensureWorktree makes w's git directory and worktree when missing and
// reads its base, all under the project's lock.
func (r *Registry) ensureWorktree(ctx context.Context, p Project, conversation string, w *Workspace) error {
	release, err := lockFile(ctx, r.worktreeLock(p))
	if err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	defer release()
	if present(filepath.Join(w.Dir, ".git")) && present(filepath.Join(w.GitDir, "HEAD")) {
		base, err := r.git(ctx, "", "--git-dir", w.GitDir, "config", "--get", baseKey)
		if err != nil {
			return fmt.Errorf("project %s: read the base of %s: %w", p.Name, w.Branch, err)
		}
		w.Base = base
		return nil
	}
	fresh, err := r.fetchedBase(ctx, p)
	if err != nil {
		return err
	}
	if err := r.ensureConversationGit(ctx, p, conversation, w); err != nil {
		return err
	}
	base, err := r.git(ctx, "", "--git-dir", w.GitDir, "config", "--get", baseKey)
	if err != nil && !isGitError(err) {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	if err := os.MkdirAll(filepath.Dir(w.Dir), 0o700); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	// A worktree directory Cleanup removed, or one cut short, is pruned
	// before it is added again.
	if _, err := r.git(ctx, "", "--git-dir", w.GitDir, "worktree", "prune"); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	if err := os.RemoveAll(w.Dir); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	if base != "" {
		if _, err := r.git(ctx, "", "--git-dir", w.GitDir, "worktree", "add", "--quiet", w.Dir, w.Branch); err != nil {
			return fmt.Errorf("project %s: check out %s again: %w", p.Name, w.Branch, err)
		}
		r.log.Info("worktree made again from its branch", "project", p.Name, "branch", w.Branch)
	} else {
		base = fresh
		if _, err := r.git(ctx, "", "--git-dir", w.GitDir, "worktree", "add", "--quiet", "-b", w.Branch, w.Dir, base); err != nil {
			return fmt.Errorf("project %s: make worktree on %s: %w", p.Name, w.Branch, err)
		}
		if _, err := r.git(ctx, "", "--git-dir", w.GitDir, "config", baseKey, base); err != nil {
			return fmt.Errorf("project %s: %w", p.Name, err)
		}
		r.log.Info("worktree made", "project", p.Name, "branch", w.Branch, "base", base)
	}
	w.Base = base
	if err := os.MkdirAll(w.Tmp, 0o700); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	return nil
}

// ensureConversationGit makes the conversation's own bare git directory,
// whose objects fall back to the clone's. Everything the conversation's
// git commands write (objects, its branch, the worktree's index and HEAD)
// lands there.
func (r *Registry) ensureConversationGit(ctx context.Context, p Project, conversation string, w *Workspace) error {
	if present(filepath.Join(w.GitDir, "HEAD")) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(w.GitDir), 0o700); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(w.GitDir), ".new-")
	if err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := r.git(ctx, "", "init", "--quiet", "--bare", tmp); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	files := map[string]string{
		"objects/info/alternates": filepath.Join(r.clonePath(p), "objects") + "\n",
		// Pictures and files from the chat are saved in the worktree;
		// they are not the project's changes.
		"info/exclude": "/attachments/\n",
		usedFile:       "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("project %s: %w", p.Name, err)
		}
	}
	for _, kv := range [][2]string{{"gc.auto", "0"}, {"core.logAllRefUpdates", "true"}, {conversationKey, conversation}} {
		if _, err := r.git(ctx, "", "--git-dir", tmp, "config", kv[0], kv[1]); err != nil {
			return fmt.Errorf("project %s: %w", p.Name, err)
		}
	}
	if err := os.Rename(tmp, w.GitDir); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	return nil
}

// InUse reports whether a turn holds the conversation (its key) now.
type InUse func(ctx context.Context, conversation string) (bool, error)

// Cleanup removes the worktrees of git projects unused for longer than
// Options.IdleCleanup, and their private temporary directories; each
// branch stays in its conversation's git directory, and the next turn
// checks it out again. A worktree whose conversation inUse (nil: none)
// says a turn holds stays, however long ago that turn started: its
// commands work there. It returns the worktrees it removed.
func (r *Registry) Cleanup(ctx context.Context, inUse InUse) ([]string, error) {
	var removed []string
	var errs []error
	cutoff := r.opts.Now().Add(-r.opts.IdleCleanup)
	for _, p := range r.list {
		if p.Git == "" {
			continue
		}
		gits, err := filepath.Glob(filepath.Join(r.projectWorkspaces(p), "*", gitDirName))
		if err != nil {
			return removed, err
		}
		for _, g := range gits {
			id := filepath.Base(filepath.Dir(g))
			if !validID(id) {
				continue
			}
			done, err := r.cleanOne(ctx, p, id, cutoff, inUse)
			if err != nil {
				errs = append(errs, err)
			}
			if done != "" {
				removed = append(removed, done)
			}
		}
	}
	return removed, errors.Join(errs...)
}

// cleanOne removes conversation id's worktree in p when it was last used
// before cutoff and no turn holds it, under the project's lock (a turn may
// be starting on it: it waits for the lock and makes the worktree again).
func (r *Registry) cleanOne(ctx context.Context, p Project, id string, cutoff time.Time, inUse InUse) (string, error) {
	w := r.layout(p, id)
	if !present(w.Dir) || !idleSince(filepath.Join(w.GitDir, usedFile), cutoff) {
		return "", nil
	}
	release, err := lockFile(ctx, r.worktreeLock(p))
	if err != nil {
		return "", fmt.Errorf("project %s: %w", p.Name, err)
	}
	defer release()
	if !idleSince(filepath.Join(w.GitDir, usedFile), cutoff) {
		return "", nil // used while we waited for the lock
	}
	if busy, err := r.busy(ctx, w, inUse); err != nil || busy {
		if busy {
			r.log.Debug("idle worktree kept: a turn holds its conversation", "project", p.Name, "branch", w.Branch)
		}
		return "", err
	}
	if _, err := r.git(ctx, "", "--git-dir", w.GitDir, "worktree", "remove", "--force", w.Dir); err != nil {
		if rmErr := os.RemoveAll(w.Dir); rmErr != nil {
			return "", fmt.Errorf("project %s: remove worktree %s: %w", p.Name, w.Dir, err)
		}
		_, _ = r.git(ctx, "", "--git-dir", w.GitDir, "worktree", "prune")
	}
	if err := os.RemoveAll(w.Tmp); err != nil {
		return w.Dir, fmt.Errorf("project %s: %w", p.Name, err)
	}
	r.log.Info("idle worktree removed; its branch stays", "project", p.Name, "branch", w.Branch)
	return w.Dir, nil
}

// busy asks inUse about w's conversation. A git directory that names no
// conversation (made before wecodex recorded it) is not busy.
func (r *Registry) busy(ctx context.Context, w Workspace, inUse InUse) (bool, error) {
	if inUse == nil {
		return false, nil
	}
	conv, err := r.git(ctx, "", "--git-dir", w.GitDir, "config", "--get", conversationKey)
	if isGitError(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("project %s: %w", w.Project, err)
	}
	held, err := inUse(ctx, conv)
	if err != nil {
		return false, fmt.Errorf("project %s: is %s in use: %w", w.Project, w.Branch, err)
	}
	return held, nil
}

func idleSince(marker string, cutoff time.Time) bool {
	fi, err := os.Stat(marker)
	return err == nil && fi.ModTime().Before(cutoff)
}

func present(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Git runs one git command in a Git project's workspace (for /diff, /reset
// and the like) and returns its standard output, trimmed. It names the
// worktree's git directory and work tree itself rather than letting git
// find them from what the conversation's commands could have changed, and,
// as every git command here, runs no hook or fsmonitor: it runs outside the
// sandbox. A git answer that is not success is a *GitError.
func (r *Registry) Git(ctx context.Context, w Workspace, args ...string) (string, error) {
	if w.GitDir == "" {
		return "", fmt.Errorf("project %s is not a git project", w.Project)
	}
	gitDir := filepath.Join(w.GitDir, "worktrees", filepath.Base(w.Dir))
	return r.git(ctx, w.Dir, append([]string{"--git-dir", gitDir, "--work-tree", w.Dir}, args...)...)
}
