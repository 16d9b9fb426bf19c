package main

import (
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
)

// botThreads is the agent's record of its sessions for /sessions, /fork and
// /name (Codex's thread/list, thread/fork and thread/name/set, for
// agent.kind codex); nil for an agent that keeps none.
func botThreads(agent acpbridge.Agent) bot.Threads {
	t, _ := agent.(bot.Threads)
	return t
}
