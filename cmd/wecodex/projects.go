package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/childenv"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// newProjects is the registry of projects.*, or nil when none are
// configured. It touches no disk: clones are made on first use.
func newProjects(cfg *configs.Config, log *slog.Logger) (*projects.Registry, error) {
	if len(cfg.Projects.List) == 0 {
		return nil, nil
	}
	root, err := filepath.Abs(cfg.Agent.WorkspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("agent.workspace_root %s: %w", cfg.Agent.WorkspaceRoot, err)
	}
	list := make([]projects.Project, 0, len(cfg.Projects.List))
	for _, p := range cfg.Projects.List {
		list = append(list, projectOf(p))
	}
	env, _ := childenv.Filter(os.Environ())
	reg, err := projects.New(list, projects.Options{
		StateDir:      configs.StateDir(),
		WorkspaceRoot: root,
		IdleCleanup:   cfg.Projects.IdleCleanup,
		Env:           env,
		Logger:        log,
	})
	if err != nil {
		return nil, fmt.Errorf("projects: %w", err)
	}
	return reg, nil
}

// projectOf is one projects.<name> as package projects takes it.
func projectOf(p configs.ProjectConfig) projects.Project {
	return projects.Project{
		Name: p.Name, Path: p.Path, Git: p.Git, Ref: p.Ref,
		Users: p.Users, Chats: p.Chats, Default: p.Default,
		GroupSessions: p.GroupSessions,
		Settings: projects.Settings{
			Model: p.Model, Models: p.Models, Effort: p.Effort, Approval: p.Approval, Approvers: p.Approvers,
			SandboxRead: p.Sandbox.Read, Instructions: p.Instructions,
			TurnsPerUserPerHour: p.Limits.TurnsPerUserPerHour, TokensPerUserPerDay: p.Limits.TokensPerUserPerDay,
		},
	}
}

// engineProjects is what the engine declares it needs of the registry.
type engineProjects struct{ reg *projects.Registry }

var (
	_ bot.Projects         = engineProjects{}
	_ bot.ProjectApprovals = engineProjects{}
	_ bot.ProjectLimits    = engineProjects{}
	_ bot.ProjectModels    = engineProjects{}
)

func (e engineProjects) Resolve(chat, user string) (string, bool) {
	p, ok := e.reg.Resolve(chat, user)
	return p.Name, ok
}

// Approval is projects.<name>.approval (bot.ProjectApprovals).
func (e engineProjects) Approval(project string) string {
	p, _ := e.reg.Lookup(project)
	return p.Settings.Approval
}

// Approvers is projects.<name>.approvers (bot.ProjectApprovals).
func (e engineProjects) Approvers(project string) []string {
	p, _ := e.reg.Lookup(project)
	return p.Settings.Approvers
}

// Models is projects.<name>.models (bot.ProjectModels).
func (e engineProjects) Models(project string) []string {
	p, _ := e.reg.Lookup(project)
	return p.Settings.Models
}

// Model is projects.<name>.model (bot.ProjectModels).
func (e engineProjects) Model(project string) string {
	p, _ := e.reg.Lookup(project)
	return p.Settings.Model
}

// Limits is projects.<name>.limits (bot.ProjectLimits).
func (e engineProjects) Limits(project string) bot.LimitOverrides {
	p, _ := e.reg.Lookup(project)
	return bot.LimitOverrides{TurnsPerHour: p.Settings.TurnsPerUserPerHour, TokensPerDay: p.Settings.TokensPerUserPerDay}
}

func (e engineProjects) Workspace(ctx context.Context, project, conversation string) (string, error) {
	w, err := e.reg.Workspace(ctx, project, conversation)
	return w.Dir, err
}

// botProjects is the engine's Projects over reg; nil for none, so the
// engine knows no projects are configured.
func botProjects(reg *projects.Registry) bot.Projects {
	if reg == nil {
		return nil
	}
	return engineProjects{reg}
}

// cleanupInterval is how often idle worktrees are looked for: often enough
// that one goes within a tenth past its idle time, at most hourly.
func cleanupInterval(idle time.Duration) time.Duration {
	return min(max(idle/10, time.Second), time.Hour)
}

// runCleanup removes idle worktrees until ctx ends, keeping those whose
// conversation inUse says a turn holds.
func runCleanup(ctx context.Context, reg *projects.Registry, idle time.Duration, inUse projects.InUse, log *slog.Logger) {
	t := time.NewTicker(cleanupInterval(idle))
	defer t.Stop()
	for {
		if _, err := reg.Cleanup(ctx, inUse); err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("remove idle worktrees", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// leaseHeld is projects.InUse over the shared queue: a turn holds a
// conversation while its lease is taken, on whichever replica runs it.
func leaseHeld(q *store.Queue) projects.InUse {
	return func(ctx context.Context, conv string) (bool, error) {
		_, token, err := q.Lease(ctx, conv)
		return token != 0, err
	}
}

// projectThread gives a thread working in a project's directory the
// project's model, effort and instructions.
func projectThread(reg *projects.Registry) func(cwd string) codex.ThreadSettings {
	return func(cwd string) codex.ThreadSettings {
		_, p, ok := reg.ForDir(cwd)
		if !ok {
			return codex.ThreadSettings{}
		}
		s := p.Settings
		return codex.ThreadSettings{Model: s.Model, Effort: s.Effort, Instructions: s.Instructions}
	}
}
