package acpbridge

import "time"

// ThreadInfo is what an agent knows of one of its sessions (for Codex, a
// thread: thread/list), for listing a conversation's sessions.
type ThreadInfo struct {
	// Name is its title, "" for none.
	Name string
	// Preview is the agent's summary line, usually the first prompt.
	Preview string
	// Cwd is the directory it works in.
	Cwd string
	// Updated is when it last changed.
	Updated time.Time
}
