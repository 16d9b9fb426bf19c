package configs

import (
	"os"
	"path/filepath"
)

// StateDir is where wecodex keeps what it writes for itself (Codex's home,
// the conversations' workspaces) when the config names no place:
// $XDG_STATE_HOME/wecodex, else ~/.local/state/wecodex. It is outside any
// checkout, so Codex never marks a wecodex checkout as a trusted project.
// It is "" when neither variable nor a home directory is known.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "wecodex")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "wecodex")
}

// CodexHome is the CODEX_HOME wecodex runs Codex with: agent.codex.home when
// set, else a CODEX_HOME already in wecodex's environment (what codex itself
// honours, so `wecodex codex-acp` stays a drop-in), else codex-home under
// StateDir. It is never the operator's own ~/.codex unless one of the first
// two says so. getenv is os.Getenv outside tests.
func (c CodexConfig) CodexHome(getenv func(string) string) string {
	if c.Home != "" {
		return c.Home
	}
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	if d := StateDir(); d != "" {
		return filepath.Join(d, "codex-home")
	}
	return ""
}

// defaultWorkspaceRoot is agent.workspace_root's default: workspaces under
// StateDir, or "" (which Validate reports) when there is no state directory.
func defaultWorkspaceRoot() string {
	if d := StateDir(); d != "" {
		return filepath.Join(d, "workspaces")
	}
	return ""
}
