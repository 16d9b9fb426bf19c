package bot

import (
	"context"
	"fmt"
	"slices"
)

// Projects is what the engine needs of the projects admins bind chats and
// users to (package projects implements it; cmd/wecodex wires it in as
// Config.Projects). A nil Projects means none are configured: every
// conversation works in its own empty workspace.
type Projects interface {
	// Resolve names the project of a conversation that chose none: chat is
	// the group chat's id ("" in a 1:1 chat), user the sender. ok is false
	// when no project applies; the conversation then works in its own
	// empty workspace under Config.WorkspaceRoot.
	Resolve(chat, user string) (project string, ok bool)
	// Workspace returns the working directory of the conversation (its
	// Key) in project, making it when missing (for a git project, its
	// worktree on its own branch). An error fails the turn.
	Workspace(ctx context.Context, project, conversation string) (dir string, err error)
	// Names are every project, in the admin's order.
	Names() []string
	// MayUse reports whether a conversation in chat ("" for none) with
	// user ("" for a whole group) may work in project.
	MayUse(project, chat, user string) bool
	// PerUser reports whether project gives each member of a group a
	// session and worktree of their own (group_sessions: per_user).
	PerUser(project string) bool
	// Changes is what the conversation changed in project against the
	// project's ref; git is false for a project that is no git project.
	Changes(ctx context.Context, project, conversation string) (c ProjectChanges, git bool, err error)
	// Reset discards what the conversation changed in project; git is
	// false for a project that is no git project.
	Reset(ctx context.Context, project, conversation string) (git bool, err error)
}

// ProjectChanges are a conversation's changes in a git project (/diff).
type ProjectChanges struct {
	Branch string
	Files  []FileChange
	// Patch is the unified diff, new files' text included.
	Patch string
}

// FileChange is one changed file: its lines added and deleted (none
// counted for a binary file), and whether git tracks it yet.
type FileChange struct {
	Path           string
	Added, Deleted int
	Binary, New    bool
}

// projectOf is the project q's turn works in, "" for none: a schedule's
// or trigger's own, else the one its conversation chose with /project
// while it may still use it, else the first that names its group chat or
// its sender, else the default.
func (r *turnRunner) projectOf(ctx context.Context, q queued) (string, error) {
	if q.Project != "" {
		// An admin named it in the config file; push checked it exists.
		if r.cfg.Projects == nil || !slices.Contains(r.cfg.Projects.Names(), q.Project) {
			return "", fmt.Errorf("the project %q of %s is no longer configured", q.Project, q.MsgID)
		}
		return q.Project, nil
	}
	return currentProject(ctx, r.cfg.Projects, r.store, q.conversation(), q.User)
}

// currentProject is the project conv, where user speaks, works in (see
// projectOf).
func currentProject(ctx context.Context, ps Projects, st projectChoices, conv Conversation, user string) (string, error) {
	if ps == nil {
		return "", nil
	}
	chosen, err := st.ChosenProject(ctx, conv.Key())
	if err != nil {
		return "", fmt.Errorf("read the project %s chose: %w", conv.Key(), err)
	}
	chat, scope := projectScope(conv, user)
	if chosen != "" && slices.Contains(ps.Names(), chosen) && ps.MayUse(chosen, chat, scope) {
		return chosen, nil
	}
	name, ok := ps.Resolve(chat, user)
	if !ok {
		return "", nil
	}
	return name, nil
}

// projectScope is whom a conversation's project choice is checked for:
// the group chat ("" in a 1:1 chat) and the user, or no user in a session
// the whole group shares, whose choice is the group's and holds for every
// member.
func projectScope(conv Conversation, user string) (chat, scope string) {
	if !conv.Group {
		return "", user
	}
	if conv.shared() {
		return conv.ID, ""
	}
	return conv.ID, conv.Member
}

// projectChoices is the part of the store that keeps /project's choice.
type projectChoices interface {
	ChosenProject(ctx context.Context, conv string) (string, error)
}

// ProjectApprovals is what Projects may add: a project's own agent.approval
// (projects.<name>.approval), "" to keep the engine's, and its own
// access.approvers (projects.<name>.approvers), empty to keep the
// engine's.
type ProjectApprovals interface {
	Approval(project string) string
	Approvers(project string) []string
}

// decidesApprovals reports whether user decides some approval requests:
// an approver of access.approvers or of a project's own list. Such a user
// may send /approve, /deny and /pending from any chat, on the access list
// or not; which requests they may decide, each request's record says.
func (in *intake) decidesApprovals(user string) bool {
	if in.cfg.Access.IsApprover(user) {
		return true
	}
	pa, ok := in.cfg.Projects.(ProjectApprovals)
	if !ok {
		return false
	}
	for _, name := range in.cfg.Projects.Names() {
		acc := in.cfg.Access
		if acc.Approvers = pa.Approvers(name); len(acc.Approvers) > 0 && acc.IsApprover(user) {
			return true
		}
	}
	return false
}

// sinkFor wraps q's card into the sink its agent is given, deciding its
// permission requests as q's project says when it overrides
// agent.approval or access.approvers.
func (r *turnRunner) sinkFor(ctx context.Context, card cardSink, q *queued, ch Channel) turnSink {
	if pa, ok := r.cfg.Projects.(ProjectApprovals); ok {
		// A choice that cannot be read fails the turn's session; its
		// sink keeps the engine's approval meanwhile.
		if project, err := r.projectOf(ctx, *q); err == nil && project != "" {
			a, list := pa.Approval(project), pa.Approvers(project)
			if a == "" {
				a = r.cfg.Approval
			}
			if a != r.cfg.Approval || len(list) > 0 {
				return newPermissions(a, r.approve.decidedBy(list)).sinkFor(card, q, ch)
			}
		}
	}
	return r.perms.sinkFor(card, q, ch)
}
