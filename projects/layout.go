package projects

import (
	"path/filepath"
	"strings"
)

// worktreesDir is the directory under the workspace root that holds the
// projects' worktrees. Its dot keeps it apart from the conversations' own
// workspaces, whose names never start with one.
const worktreesDir = ".projects"

// tmpDir, in a project's worktree directory, holds each conversation's
// private temporary directory, out of its worktree.
const tmpDir = ".tmp"

// projectState is where the project's clone, its lock and the
// conversations' git directories live.
func (r *Registry) projectState(p Project) string {
	return filepath.Join(r.opts.StateDir, "projects", p.Name)
}

// clonePath is the project's bare clone.
func (r *Registry) clonePath(p Project) string {
	return filepath.Join(r.projectState(p), "clone.git")
}

// cloneLock guards the clone: making it and fetching it.
func (r *Registry) cloneLock(p Project) string { return filepath.Join(r.projectState(p), "lock") }

// gitDirs, in a project's worktree directory, holds the conversations' git
// directories. They sit with the worktrees, not with the clone: replicas
// that share a state directory but not a workspace root each keep their
// own, so neither finds the other's branch checked out where it cannot go.
const gitDirs = ".git"

// worktreeLock guards the conversations' git directories and worktrees.
func (r *Registry) worktreeLock(p Project) string {
	return filepath.Join(r.projectWorkspaces(p), gitDirs, "lock")
}

// conversationGit is the git directory a conversation's worktree belongs to.
func (r *Registry) conversationGit(p Project, id string) string {
	return filepath.Join(r.projectWorkspaces(p), gitDirs, id+".git")
}

// projectWorkspaces is where the project's worktrees (and the private
// temporary directories of its conversations) are.
func (r *Registry) projectWorkspaces(p Project) string {
	return filepath.Join(r.opts.WorkspaceRoot, worktreesDir, p.Name)
}

// worktreePath is the conversation's worktree.
func (r *Registry) worktreePath(p Project, id string) string {
	return filepath.Join(r.projectWorkspaces(p), id)
}

// tmpPath is the private temporary directory of the conversation id; a
// path project's conversations share the directory they work in, and so
// one temporary directory ("" id).
func (r *Registry) tmpPath(p Project, id string) string {
	if p.Git == "" {
		return filepath.Join(r.projectWorkspaces(p), tmpDir)
	}
	return filepath.Join(r.projectWorkspaces(p), tmpDir, id)
}

// layout is what the conversation id's commands reach in project p.
func (r *Registry) layout(p Project, id string) Workspace {
	w := Workspace{Project: p.Name, Tmp: r.tmpPath(p, id)}
	if p.Git == "" {
		w.Dir = filepath.Clean(p.Path)
		return w
	}
	w.Dir = r.worktreePath(p, id)
	w.Branch = BranchPrefix + id
	w.GitDir = r.conversationGit(p, id)
	w.Write = []string{w.GitDir}
	w.Read = []string{filepath.Join(r.clonePath(p), "objects")}
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
		if p.Git == "" || filepath.Dir(dir) != r.projectWorkspaces(p) {
			continue
		}
		id := filepath.Base(dir)
		if strings.HasPrefix(id, ".") { // tmpDir, gitDirs
			continue
		}
		return r.layout(p, id), p, true
	}
	return Workspace{}, Project{}, false
}
