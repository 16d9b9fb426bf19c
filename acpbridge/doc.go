// Package acpbridge owns the agent side of wecodex: the Agent interface the bot
// drives, the one phase-routing rule every path shares, the ACP client for
// external agents, and serving an Agent as an ACP agent on stdio.
//
// Every value that crosses this package's API is an acp-go-sdk type, so the bot
// never learns which agent (the built-in Codex bridge or an external ACP agent)
// it is talking to.
package acpbridge
