package main

import (
	"log/slog"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/retention"
	"github.com/wecodex/wecodex/store"
)

// newSweeper is serve's retention sweep (retention.threads, .attachments,
// .audit) over this replica's agent, workspace root and the shared store.
// Threads are swept only for agent.kind codex: an external ACP agent's
// threads are not listed to wecodex. audit.file is left to logrotate's
// maxage (README).
func newSweeper(cfg *configs.Config, agent acpbridge.Agent, db *store.DB, root string, log *slog.Logger) *retention.Sweeper {
	r := cfg.Retention
	opts := retention.Options{
		Threads: r.Threads, Attachments: r.Attachments, Audit: r.Audit,
		Conversations: store.NewConversations(db), Lists: store.NewThreads(db), WorkspaceRoot: root, Logger: log,
	}
	if t, ok := agent.(retention.Threads); ok {
		opts.Agent = t
	} else if r.Threads > 0 {
		log.Warn("retention.threads is set but agent.kind acp cannot list its threads; they are kept", "agent", cfg.Agent.Kind)
	}
	if cfg.Audit.Redis {
		opts.Stream = store.NewAudit(db)
	}
	return retention.New(opts)
}
