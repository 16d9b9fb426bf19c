// Package acpbridge owns the agent side's domain: the Agent interface the bot
// drives, Sink and Notice, the one phase-routing rule every path shares, the
// PhaseCache, the permission policy and the error kinds. The agents themselves
// live below it: codex (the built-in Codex app-server bridge) and external
// (an ACP client for subprocess agents); serve serves any Agent over ACP.
//
// Every value that crosses this package's API is an acp-go-sdk type, so the bot
// never learns which agent it is talking to.
package acpbridge
