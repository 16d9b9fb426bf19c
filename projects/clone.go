package projects

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// fetchedBase makes or fetches the clone and returns the commit the
// project's ref names in it, under the clone's lock.
func (r *Registry) fetchedBase(ctx context.Context, p Project) (string, error) {
	release, err := lockFile(ctx, r.cloneLock(p))
	if err != nil {
		return "", fmt.Errorf("project %s: %w", p.Name, err)
	}
	defer release()
	if err := r.ensureClone(ctx, p, true); err != nil {
		return "", err
	}
	return r.base(ctx, p)
}

// ensureClone makes the project's bare clone when the replica has none,
// and fetches it when fetch is set. The caller holds the project's lock. A
// fetch that fails over an existing clone is logged and the clone used as
// it is: a remote that is down must not stop conversations already working.
func (r *Registry) ensureClone(ctx context.Context, p Project, fetch bool) error {
	clone := r.clonePath(p)
	_, err := os.Stat(filepath.Join(clone, "HEAD"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return r.clone(ctx, p)
	case err != nil:
		return fmt.Errorf("project %s: %w", p.Name, err)
	case !fetch:
		return nil
	}
	if err := r.fetch(ctx, p, clone); err != nil {
		if ctx.Err() != nil {
			return err
		}
		r.log.Warn("fetch project; working from the clone as it is", "project", p.Name, "err", err)
	}
	return nil
}

// clone makes the bare clone in a temporary directory beside its place
// and renames it there, so a clone cut short leaves nothing half made.
func (r *Registry) clone(ctx context.Context, p Project) error {
	clone := r.clonePath(p)
	if err := os.MkdirAll(filepath.Dir(clone), 0o700); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(clone), ".clone-")
	if err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	defer os.RemoveAll(tmp)
	steps := [][]string{
		{"init", "--quiet", "--bare", tmp},
		{"-C", tmp, "remote", "add", "origin", p.Git},
		// The conversations' git directories borrow these objects: the
		// clone must never drop one they may still point at.
		{"-C", tmp, "config", "gc.auto", "0"},
		{"-C", tmp, "config", "gc.pruneExpire", "never"},
	}
	for _, args := range steps {
		if _, err := r.git(ctx, "", args...); err != nil {
			return fmt.Errorf("project %s: clone: %w", p.Name, err)
		}
	}
	if err := r.fetch(ctx, p, tmp); err != nil {
		return fmt.Errorf("project %s: clone %s: %w", p.Name, p.Git, err)
	}
	if err := os.Rename(tmp, clone); err != nil {
		return fmt.Errorf("project %s: %w", p.Name, err)
	}
	r.log.Info("project cloned", "project", p.Name)
	return nil
}

// fetch brings the remote's branches and tags into the clone, and when
// the project names no ref, what the remote's HEAD is.
func (r *Registry) fetch(ctx context.Context, p Project, clone string) error {
	if _, err := r.git(ctx, "", "-C", clone, "fetch", "--quiet", "--prune", "--tags", "origin", "+refs/heads/*:refs/remotes/origin/*"); err != nil {
		return err
	}
	if p.Ref == "" {
		if _, err := r.git(ctx, "", "-C", clone, "remote", "set-head", "origin", "--auto"); err != nil {
			return err
		}
	}
	return nil
}

// base is the commit the project's ref names in the clone: a branch of the
// remote, a tag, or a commit; with no ref, the remote's default branch.
func (r *Registry) base(ctx context.Context, p Project) (string, error) {
	clone := r.clonePath(p)
	cands := []string{"refs/remotes/origin/HEAD"}
	if p.Ref != "" {
		cands = []string{"refs/remotes/origin/" + p.Ref, "refs/tags/" + p.Ref, p.Ref}
	}
	var last error
	for _, c := range cands {
		sha, err := r.git(ctx, "", "-C", clone, "rev-parse", "--verify", "--quiet", "--end-of-options", c+"^{commit}")
		if err == nil {
			return sha, nil
		}
		if !isGitError(err) {
			return "", err
		}
		last = err
	}
	ref := p.Ref
	if ref == "" {
		ref = "the remote's default branch"
	}
	return "", fmt.Errorf("project %s: ref %s is not in %s: %w", p.Name, ref, p.Git, last)
}

// Probe asks the remote of a git project whether it answers, as
// check-config's warning does: nil, or git's reason. It uses no clone.
func Probe(ctx context.Context, gitBin string, env []string, url string) error {
	if gitBin == "" {
		gitBin = "git"
	}
	_, err := runGit(ctx, gitBin, env, "", "ls-remote", url, "HEAD")
	return err
}
