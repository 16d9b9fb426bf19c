package bot

import "context"

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
}

// projectOf is the project q's conversation works in, "" for none: the
// first that names its group chat or its sender, else the default.
func (r *turnRunner) projectOf(q queued) string {
	if r.cfg.Projects == nil {
		return ""
	}
	c := q.conversation()
	chat := ""
	if c.Group {
		chat = c.ID
	}
	name, ok := r.cfg.Projects.Resolve(chat, q.User)
	if !ok {
		return ""
	}
	return name
}
