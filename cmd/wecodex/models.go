package main

import (
	"context"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
)

// botModels is what /model offers: agent.models when set, else Codex's
// model/list (agent.kind codex).
func botModels(cfg *configs.Config, agent acpbridge.Agent) bot.ModelConfig {
	mc := bot.ModelConfig{Allowed: cfg.Agent.Models}
	if a, ok := agent.(*codex.Agent); ok {
		mc.List = func(ctx context.Context) ([]string, error) {
			ms, err := a.Models(ctx)
			ids := make([]string, 0, len(ms))
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			return ids, err
		}
	}
	return mc
}
