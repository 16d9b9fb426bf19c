package projects

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"
)

// Group session modes (Project.GroupSessions).
const (
	// GroupShared: a whole group shares one session and worktree.
	GroupShared = "shared"
	// GroupPerUser: each member of a group has their own session and
	// worktree in that group.
	GroupPerUser = "per_user"
)

// DefaultIdleCleanup is Options.IdleCleanup's default: 30 days.
const DefaultIdleCleanup = 30 * 24 * time.Hour

// Project is one project as the admin configured it.
type Project struct {
	// Name is the project's key under projects in the YAML.
	Name string
	// Path is an existing checkout the project's conversations share; Git
	// a repository URL (or path) cloned per replica, each conversation
	// working on its own branch made from Ref ("" means the remote's
	// default branch). Exactly one of Path and Git is set.
	Path string
	Git  string
	Ref  string
	// Users and Chats bind userids and group chat ids to the project.
	Users []string
	Chats []string
	// Default makes this the project of every conversation no project
	// names.
	Default bool
	// GroupSessions is GroupShared or GroupPerUser ("" is shared).
	GroupSessions string
	// Settings override the agent's for the project's conversations.
	Settings Settings
}

// Settings are what a project overrides of the agent's settings; a zero
// field keeps the agent's.
type Settings struct {
	Model        string   // Codex's model
	Models       []string // agent.models, replaced: what /model offers
	Effort       string   // reasoning effort
	Approval     string   // agent.approval: ask, allow or deny
	Approvers    []string // access.approvers
	SandboxRead  []string // agent.sandbox.read, replaced
	Instructions string   // developer instructions for every thread
	// TurnsPerUserPerHour and TokensPerUserPerDay replace limits.* for
	// the project's conversations when set (nil keeps limits.*; 0 is no
	// limit there).
	TurnsPerUserPerHour *int
	TokensPerUserPerDay *int64
}

// names reports whether the project names chat (a group chat id, "" for
// none) or user.
func (p Project) names(chat, user string) bool {
	return (chat != "" && slices.Contains(p.Chats, chat)) || (user != "" && slices.Contains(p.Users, user))
}

// Options say where a Registry keeps its clones and worktrees.
type Options struct {
	// StateDir is wecodex's state directory; clones and the
	// conversations' git directories live under StateDir/projects.
	// Required when a project has Git.
	StateDir string
	// WorkspaceRoot is agent.workspace_root; worktrees live under
	// WorkspaceRoot/.projects, where no conversation's own workspace can
	// be (their names never start with a dot). Required.
	WorkspaceRoot string
	// IdleCleanup is how long a worktree may go unused before Cleanup
	// removes it; 0 means DefaultIdleCleanup.
	IdleCleanup time.Duration
	// Git is the git executable; "" means "git" on PATH.
	Git string
	// Env is git's whole environment (an allow-listed part of wecodex's:
	// git must not see wecodex's secrets); nil means package childenv's
	// filter of this process's environment.
	Env []string
	// Now is the clock for Cleanup; nil means time.Now.
	Now func() time.Time
	// Logger receives clone, fetch and cleanup lines; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Registry is the configured projects. Its methods are safe for concurrent
// use; what it changes on disk it changes under a file lock per project.
type Registry struct {
	list []Project
	opts Options
	log  *slog.Logger
}

// New checks the projects and returns their Registry. It touches no disk
// and no network: a clone is made on a conversation's first use.
func New(list []Project, opts Options) (*Registry, error) {
	if opts.IdleCleanup == 0 {
		opts.IdleCleanup = DefaultIdleCleanup
	}
	if opts.Git == "" {
		opts.Git = "git"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.WorkspaceRoot == "" {
		return nil, fmt.Errorf("projects: no workspace root")
	}
	root, err := filepath.Abs(opts.WorkspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("projects: workspace root: %w", err)
	}
	opts.WorkspaceRoot = root
	seen := map[string]bool{}
	defaults := 0
	for _, p := range list {
		switch {
		case !validName(p.Name):
			return nil, fmt.Errorf("projects: %q is not a valid project name", p.Name)
		case seen[p.Name]:
			return nil, fmt.Errorf("projects: %q is defined twice", p.Name)
		case (p.Path == "") == (p.Git == ""):
			return nil, fmt.Errorf("projects: %s needs exactly one of path and git", p.Name)
		case p.Git != "" && opts.StateDir == "":
			return nil, fmt.Errorf("projects: %s is a git project, and there is no state directory to clone it into", p.Name)
		}
		seen[p.Name] = true
		if p.Default {
			defaults++
		}
	}
	if defaults > 1 {
		return nil, fmt.Errorf("projects: more than one default project")
	}
	if opts.StateDir != "" {
		if opts.StateDir, err = filepath.Abs(opts.StateDir); err != nil {
			return nil, fmt.Errorf("projects: state directory: %w", err)
		}
	}
	return &Registry{list: slices.Clone(list), opts: opts, log: log}, nil
}

// Projects are every project, in the admin's order.
func (r *Registry) Projects() []Project { return slices.Clone(r.list) }

// Lookup is the project called name.
func (r *Registry) Lookup(name string) (Project, bool) {
	for _, p := range r.list {
		if p.Name == name {
			return p, true
		}
	}
	return Project{}, false
}

// Resolve is the project a conversation works in when it chose none: the
// first whose Chats name chat (the group chat's id; "" in a 1:1 chat) or
// whose Users name user, else the Default one. ok is false when there is
// neither: the conversation gets an empty directory of its own.
func (r *Registry) Resolve(chat, user string) (p Project, ok bool) {
	for _, p := range r.list {
		if p.names(chat, user) {
			return p, true
		}
	}
	for _, p := range r.list {
		if p.Default {
			return p, true
		}
	}
	return Project{}, false
}

// MayUse reports whether a conversation in chat ("" for a 1:1 chat) with
// user may work in the project: the project names the chat or the user, or
// it is the Default (which every conversation may use).
func (r *Registry) MayUse(p Project, chat, user string) bool {
	return p.Default || p.names(chat, user)
}
