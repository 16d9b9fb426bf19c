package main

import (
	"context"
	"fmt"
	"strings"

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
		mc.Default = func(ctx context.Context) (string, error) { return codexDefaultModel(ctx, cfg, a) }
	}
	return mc
}

// codexDefaultModel is the model Codex runs a turn naming none with:
// agent.codex.config's model when set, else the one model/list marks as
// its default.
func codexDefaultModel(ctx context.Context, cfg *configs.Config, a *codex.Agent) (string, error) {
	if m := strings.Trim(cfg.Agent.Codex.Config["model"], `"' `); m != "" {
		return m, nil
	}
	ms, err := a.Models(ctx)
	if err != nil {
		return "", err
	}
	for _, m := range ms {
		if m.Default {
			return m.ID, nil
		}
	}
	return "", fmt.Errorf("codex model/list marks no model as its default")
}

// botUsage is what /usage reads of the agent: Codex's account rate limits
// (account/rateLimits/read); nothing for an ACP agent.
func botUsage(agent acpbridge.Agent) bot.UsageConfig {
	a, ok := agent.(*codex.Agent)
	if !ok {
		return bot.UsageConfig{}
	}
	return bot.UsageConfig{RateLimits: func(ctx context.Context) ([]bot.RateLimitWindow, error) {
		ws, err := a.RateLimits(ctx)
		out := make([]bot.RateLimitWindow, 0, len(ws))
		for _, w := range ws {
			out = append(out, bot.RateLimitWindow{Limit: w.Limit, Which: w.Which, UsedPercent: w.UsedPercent, Window: w.Window, ResetsAt: w.ResetsAt})
		}
		return out, err
	}}
}
