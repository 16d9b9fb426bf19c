package configs

import (
	"path/filepath"
	"testing"
)

func TestCodexHomeAndStateDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", "")
	state := filepath.Join(home, ".local", "state", "wecodex")
	if got := StateDir(); got != state {
		t.Fatalf("StateDir() = %q, want %q", got, state)
	}
	if got := Default().Agent.WorkspaceRoot; got != filepath.Join(state, "workspaces") {
		t.Fatalf("default agent.workspace_root = %q, want it under %s", got, state)
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name, home, envHome, want string
	}{
		{"state directory", "", "", filepath.Join(state, "codex-home")},
		{"CODEX_HOME from the environment", "", "/srv/codex", "/srv/codex"},
		{"agent.codex.home wins", "/etc/wecodex/codex", "/srv/codex", "/etc/wecodex/codex"},
	}
	for _, tt := range tests {
		env["CODEX_HOME"] = tt.envHome
		if got := (CodexConfig{Home: tt.home}).CodexHome(getenv); got != tt.want {
			t.Errorf("%s: CodexHome = %q, want %q", tt.name, got, tt.want)
		}
	}

	t.Setenv("XDG_STATE_HOME", "/var/lib/state")
	if got := StateDir(); got != "/var/lib/state/wecodex" {
		t.Fatalf("StateDir() with XDG_STATE_HOME = %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "relative/is/ignored")
	if got := StateDir(); got != state {
		t.Fatalf("StateDir() with a relative XDG_STATE_HOME = %q, want %q", got, state)
	}
}
