package main

import (
	"context"
	"errors"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/projects"
)

// What the engine's chat commands (/project, /diff, /reset) and per-user
// group sessions need of the registry, beside Resolve and Workspace.

func (e engineProjects) Names() []string {
	var names []string
	for _, p := range e.reg.Projects() {
		names = append(names, p.Name)
	}
	return names
}

func (e engineProjects) MayUse(project, chat, user string) bool {
	p, ok := e.reg.Lookup(project)
	return ok && e.reg.MayUse(p, chat, user)
}

func (e engineProjects) PerUser(project string) bool {
	p, ok := e.reg.Lookup(project)
	return ok && p.GroupSessions == projects.GroupPerUser
}

func (e engineProjects) Changes(ctx context.Context, project, conversation string) (bot.ProjectChanges, bool, error) {
	c, err := e.reg.Changes(ctx, project, conversation)
	if errors.Is(err, projects.ErrNotGit) {
		return bot.ProjectChanges{}, false, nil
	}
	out := bot.ProjectChanges{Branch: c.Branch, Patch: c.Patch}
	for _, f := range c.Files {
		out.Files = append(out.Files, bot.FileChange{Path: f.Path, Added: f.Added, Deleted: f.Deleted, Binary: f.Binary, New: f.New})
	}
	return out, true, err
}

func (e engineProjects) Reset(ctx context.Context, project, conversation string) (bool, error) {
	err := e.reg.Reset(ctx, project, conversation)
	if errors.Is(err, projects.ErrNotGit) {
		return false, nil
	}
	return true, err
}
