// Package codex owns the Codex app-server client and its translation to ACP.
//
// One `codex app-server` process (JSON lines over stdio) serves every
// conversation of an [Agent]: each ACP session is one Codex thread, and the
// session id is the thread id. The translator turns app-server notifications
// into acp-go-sdk session updates with the one phase rule of package acpbridge:
// an agent message's phase arrives only on item/started, so it is remembered
// there (in a PhaseStore shared with other processes, behind an in-process
// cache) and looked up for every delta. When the app-server hangs (the
// watchdog kills it) or dies, a new one takes its place: requests the dead
// one had not acted on are sent again, and a running turn is continued
// (recovery.go).
package codex
