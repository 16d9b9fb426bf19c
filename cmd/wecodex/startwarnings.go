package main

import (
	"os"

	"github.com/wecodex/wecodex/configs"
)

// startWarnings is what serve warns about at start beyond the config file's
// own warnings, from the config and the machine alone (no Redis, no
// network), so check-config can say the same before anything runs: each is
// something that runs but leaves the bot useless or fragile.
func startWarnings(cfg *configs.Config, lookPath func(string) (string, error)) []configs.Warning {
	var ws []configs.Warning
	if !longConnMode(cfg) && !cfg.AIBotWebhook() && !cfg.AppEnabled() {
		ws = append(ws, configs.Warning{Key: "wecom", Message: "no channel is on: set wecom.aibot (token and encoding_aes_key, or bot_id and secret), wecom.app, or playground.enabled; nobody can reach the bot"})
	}
	a := cfg.Access
	if len(a.AllowUsers) == 0 && len(a.AllowChats) == 0 && len(a.Admins) == 0 {
		ws = append(ws, configs.Warning{Key: "access", Message: "access lists are empty: nobody may use the bot until access.allow_users, access.allow_chats or access.admins names someone"})
	}
	ws = append(ws, projectWarnings(cfg)...)
	if len(cfg.Redis.Addrs()) == 0 {
		ws = append(ws, configs.Warning{Key: "redis.addr", Message: "empty: using an embedded in-memory Redis; nothing survives a restart and replicas cannot share state"})
	}
	if cfg.Agent.Kind == configs.AgentCodex {
		c := cfg.Agent.Codex
		if home := c.CodexHome(os.Getenv); home != "" && !codexLoggedIn(c, home) {
			ws = append(ws, configs.Warning{Key: "agent.codex.home", Message: notLoggedIn + " (CODEX_HOME " + home + ")"})
		}
		// Codex's own words when it starts without it (its sandbox).
		if _, err := lookPath("bwrap"); err != nil {
			ws = append(ws, configs.Warning{Key: "agent.codex.sandbox", Message: "Codex could not find bubblewrap on PATH: install bubblewrap (apt-get install bubblewrap) so Codex's sandbox uses the system one"})
		}
	}
	return ws
}
