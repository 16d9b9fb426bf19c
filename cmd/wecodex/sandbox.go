package main

import (
	"log/slog"
	"os"

	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/sandbox"
)

// newSandbox is the sandbox serve's conversations run in (sandbox.New),
// with the files serve keeps where its environment puts them.
func newSandbox(cfg *configs.Config, configPath string, reg *projects.Registry) (*sandbox.Sandbox, error) {
	return sandbox.New(cfg, sandbox.Service{
		ConfigFile: configPath,
		CodexHome:  cfg.Agent.Codex.CodexHome(os.Getenv),
		StateDir:   configs.StateDir(),
	}, reg)
}

// logSandbox says at startup what the conversations' commands reach.
func logSandbox(log *slog.Logger, cfg *configs.Config, sb *sandbox.Sandbox) {
	switch {
	case cfg.Agent.Kind != configs.AgentCodex:
		log.Info("agent.kind acp: the agent's own sandbox, if any, confines its commands; agent.sandbox does not apply")
	case sb == nil:
		log.Warn("agent.codex.sandbox is danger-full-access: every conversation's commands reach all the service user can, other conversations' workspaces and CODEX_HOME included")
	default:
		log.Info("each conversation's commands run in Codex's sandbox", "sandbox", cfg.Agent.Codex.Sandbox, "read", sb.Read(), "deny", sb.Deny())
	}
}
