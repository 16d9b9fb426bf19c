package acpbridge

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// Mode is how far a session's turns may reach: the chat's /mode and an ACP
// client's session mode name the same three. Each agent maps it onto its
// own permissions (the Codex bridge: acpbridge/codex/mode.go).
type Mode string

const (
	// ModeReadOnly lets the agent look, never change: commands run in a
	// read-only sandbox.
	ModeReadOnly Mode = "read-only"
	// ModeWorkspace, the default, lets it change the workspace and asks
	// before anything beyond it.
	ModeWorkspace Mode = "workspace"
	// ModeFull lifts the sandbox and asks for nothing.
	ModeFull Mode = "full"
)

// DefaultMode is the mode of a session nobody switched.
const DefaultMode = ModeWorkspace

// Modes are all the modes, the most restricted first.
func Modes() []Mode { return []Mode{ModeReadOnly, ModeWorkspace, ModeFull} }

// ParseMode returns the mode named s, or an error listing the names.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown mode %q: want read-only, workspace or full", s)
}

// ModeStarter is an Agent that starts a session in a mode, so its first
// turn in that mode finds it ready: a confined Codex thread takes its mode
// with its permission profile when it loads, and cannot be reloaded in
// another before its first turn has written its rollout.
type ModeStarter interface {
	NewSessionIn(ctx context.Context, cwd string, mode Mode) (acp.SessionId, error)
}
