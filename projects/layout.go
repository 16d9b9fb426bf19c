package projects

import (
	"path/filepath"
)

// worktreesDir is the directory under the workspace root that holds the
// projects' worktrees. Its dot keeps it apart from the conversations' own
// workspaces, whose names never start with one.
const worktreesDir = ".projects"

// A git project's conversation has one directory of its own,
// WorkspaceRoot/.projects/<project>/<id>, holding its worktree (named after
// the project: the directory Codex works in), its git directory and its
// private temporary directory. The conversation's commands write that one
// directory, not the worktree alone: Codex makes the git directory a
// worktree's .git file points at read-only when the worktree itself is a
// writable root, and git add and commit must write there. What must stay
// read-only (the .git pointer, the git directory's config and hooks, which
// wecodex's own git commands outside the sandbox would obey) is listed in
// Workspace.Read.
const (
	gitDirName = "gitdir" // not .git: Codex hides a writable root's .git
	tmpName    = "tmp"
)

// projectState is where the project's clone and its lock live.
func (r *Registry) projectState(p Project) string {
	return filepath.Join(r.opts.StateDir, "projects", p.Name)
}

// clonePath is the project's bare clone.
func (r *Registry) clonePath(p Project) string {
	return filepath.Join(r.projectState(p), "clone.git")
}

// cloneLock guards the clone: making it and fetching it.
func (r *Registry) cloneLock(p Project) string { return filepath.Join(r.projectState(p), "lock") }

// projectWorkspaces is where the project's conversations have their
// directories.
func (r *Registry) projectWorkspaces(p Project) string {
	return filepath.Join(r.opts.WorkspaceRoot, worktreesDir, p.Name)
}

// worktreeLock guards the conversations' git directories and worktrees.
// They sit with the worktrees, not with the clone: replicas that share a
// state directory but not a workspace root each keep their own, so neither
// finds the other's branch checked out where it cannot go.
func (r *Registry) worktreeLock(p Project) string {
	return filepath.Join(r.projectWorkspaces(p), ".lock")
}

// layout is what the conversation id's commands reach in project p.
func (r *Registry) layout(p Project, id string) Workspace {
	w := Workspace{Project: p.Name}
	if p.Git == "" {
		w.Dir = filepath.Clean(p.Path)
		// A path project's conversations share the directory they work
		// in, and so one temporary directory.
		w.Tmp = filepath.Join(r.projectWorkspaces(p), ".tmp")
		w.Write = []string{w.Dir, w.Tmp}
		return w
	}
	own := filepath.Join(r.projectWorkspaces(p), id)
	w.Dir = filepath.Join(own, p.Name)
	w.Tmp = filepath.Join(own, tmpName)
	w.Branch = BranchPrefix + id
	w.GitDir = filepath.Join(own, gitDirName)
	wt := filepath.Join(w.GitDir, "worktrees", p.Name)
	w.Write = []string{own}
	w.Read = []string{
		filepath.Join(r.clonePath(p), "objects"),
		filepath.Join(w.Dir, ".git"),
		filepath.Join(w.GitDir, "config"),
		filepath.Join(w.GitDir, "hooks"),
		filepath.Join(wt, "commondir"),
		filepath.Join(wt, "gitdir"),
	}
	return w
}

// ForDir is the workspace whose working directory is dir, as Workspace
// returned it (Base aside: ForDir reads nothing from disk): what the
// sandbox of a session working in dir must reach. ok is false for a
// directory no project has (a conversation's own empty workspace).
func (r *Registry) ForDir(dir string) (w Workspace, p Project, ok bool) {
	dir = filepath.Clean(dir)
	for _, p := range r.list {
		if p.Git == "" && filepath.Clean(p.Path) == dir {
			return r.layout(p, ""), p, true
		}
		own := filepath.Dir(dir)
		if p.Git == "" || filepath.Base(dir) != p.Name || filepath.Dir(own) != r.projectWorkspaces(p) {
			continue
		}
		id := filepath.Base(own)
		if !validID(id) {
			continue
		}
		return r.layout(p, id), p, true
	}
	return Workspace{}, Project{}, false
}
