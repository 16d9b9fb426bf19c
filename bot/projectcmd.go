package bot

import (
	"context"
	"fmt"
	"strings"
)

// projectCommand answers /project, /project <name>, /diff, /reset and
// /reset yes. None of them reaches the agent.
func (in *intake) projectCommand(ctx context.Context, m Message, cmd string) (string, error) {
	ps := in.cfg.Projects
	if ps == nil {
		return textNoProjects, nil
	}
	args := strings.Fields(m.Text)[1:]
	conv := m.Conversation
	current, err := currentProject(ctx, ps, in.store, conv, m.User)
	if err != nil {
		return "", fmt.Errorf("%s in %s: %w", cmd, conv.Key(), err)
	}
	switch {
	case cmd == "/project" && len(args) == 0:
		return in.listProjects(conv, m.User, current), nil
	case cmd == "/project":
		return in.switchProject(ctx, m, args[0])
	case current == "":
		return textNoProject, nil
	case cmd == "/diff":
		return in.diff(ctx, conv, current)
	}
	return in.reset(ctx, conv, current, len(args) == 1 && strings.EqualFold(args[0], "yes"))
}

// usableProjects are the projects conv may switch to, in the admin's
// order.
func usableProjects(ps Projects, conv Conversation, user string) []string {
	chat, scope := projectScope(conv, user)
	var out []string
	for _, name := range ps.Names() {
		if ps.MayUse(name, chat, scope) {
			out = append(out, name)
		}
	}
	return out
}

func (in *intake) listProjects(conv Conversation, user, current string) string {
	usable := usableProjects(in.cfg.Projects, conv, user)
	if len(usable) == 0 && current == "" {
		return textNoUsableProject
	}
	var b strings.Builder
	writeMarkedList(&b, "**Projects** (▶ this conversation's)", usable, current)
	if current == "" {
		b.WriteString("\nThis conversation works in no project: its own empty directory.\n")
	}
	b.WriteString("\n" + textProjectSwitchHint)
	return b.String()
}

func (in *intake) switchProject(ctx context.Context, m Message, name string) (string, error) {
	conv, user := m.Conversation, m.User
	ps := in.cfg.Projects
	usable := usableProjects(ps, conv, user)
	known := false
	for _, n := range ps.Names() {
		known = known || n == name
	}
	switch {
	case !known:
		return fmt.Sprintf("There is no project `%s`. %s", name, projectList(usable)), nil
	case !contains(usable, name):
		in.log.Info("refused: project not open to this conversation", "conv", conv, "user", user, "project", name)
		in.auditRefusedDetail(ctx, m, RefusedProject, name)
		return fmt.Sprintf(textProjectNotAllowed, name, name), nil
	}
	if err := in.store.ChooseProject(ctx, conv.Key(), name); err != nil {
		return "", fmt.Errorf("/project in %s: %w", conv.Key(), err)
	}
	in.log.Info("project chosen", "conv", conv, "user", user, "project", name)
	in.auditSetting(ctx, m, "project", name)
	return fmt.Sprintf(textProjectSwitched, name), nil
}

func (in *intake) diff(ctx context.Context, conv Conversation, project string) (string, error) {
	c, git, err := in.cfg.Projects.Changes(ctx, project, conv.Key())
	switch {
	case err != nil:
		return "", fmt.Errorf("/diff in %s: %w", conv.Key(), err)
	case !git:
		return fmt.Sprintf(textNotGitProject, project), nil
	case len(c.Files) == 0:
		return fmt.Sprintf("No changes in `%s` on `%s` against the project's ref.", project, c.Branch), nil
	}
	return diffSummary(project, c, diffBudget), nil
}

func (in *intake) reset(ctx context.Context, conv Conversation, project string, confirmed bool) (string, error) {
	if !confirmed {
		return fmt.Sprintf(textResetAsk, project), nil
	}
	// The reset holds the conversation's lease while it discards: a turn
	// taking the lease between a check and the reset would write into a
	// worktree being thrown away. Messages sent meanwhile wait in the queue.
	token, err := in.store.ClaimLease(ctx, conv.Key(), in.cfg.Replica, in.cfg.LeaseTTL)
	if err != nil {
		return "", fmt.Errorf("/reset in %s: %w", conv.Key(), err)
	}
	if token == 0 {
		return textResetBusy, nil
	}
	defer in.endClaim(ctx, conv, token)
	// Nothing renews the claim: the reset ends before it could lapse and
	// let a turn in.
	rctx, cancel := context.WithTimeout(ctx, in.cfg.LeaseTTL*2/3)
	defer cancel()
	git, err := in.cfg.Projects.Reset(rctx, project, conv.Key())
	switch {
	case err != nil:
		return "", fmt.Errorf("/reset in %s: %w", conv.Key(), err)
	case !git:
		return fmt.Sprintf(textNotGitProject, project), nil
	}
	in.log.Info("worktree reset", "conv", conv, "project", project)
	return fmt.Sprintf(textResetDone, project), nil
}

// endClaim releases the lease reset claimed, also when the request that
// claimed it was cancelled, and lets a message queued meanwhile start.
func (in *intake) endClaim(ctx context.Context, conv Conversation, token int64) {
	if _, err := in.store.ReleaseLease(context.WithoutCancel(ctx), conv.Key(), token); err != nil {
		// The claim lapses by itself within the lease's TTL.
		in.log.Warn("release the lease /reset claimed", "conv", conv, "err", err)
	}
	in.sched.wake(conv.Key())
}

// projectList names the projects a conversation may use.
func projectList(usable []string) string {
	if len(usable) == 0 {
		return "No project is open to this conversation."
	}
	return "Projects here: `" + strings.Join(usable, "`, `") + "`."
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// perUser returns m's conversation as the sender's own when m comes from a
// group whose project gives each member a session of their own.
func (in *intake) perUser(m Message) Conversation {
	c := m.Conversation
	ps := in.cfg.Projects
	if ps == nil || !c.Group || c.Member != "" {
		return c
	}
	if name, ok := ps.Resolve(c.ID, m.User); ok && ps.PerUser(name) {
		c.Member = m.User
	}
	return c
}
