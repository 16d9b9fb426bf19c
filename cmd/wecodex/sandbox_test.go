package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serve refuses each layout whose hole Codex's sandbox could not close, and
// says why, before it connects to anything.
func TestServeRefusesAnUnsafeSandboxLayout(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "workspaces")
	home := filepath.Join(dir, "codex-home")
	state := filepath.Join(dir, "state")
	for _, tc := range []struct {
		name  string
		agent string // the agent section's keys, indented by two spaces
		env   []string
		toml  string // CODEX_HOME/config.toml
		want  string
	}{{
		name:  "CODEX_HOME in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q\n  codex:\n    home: %q", root, filepath.Join(root, "codex")),
		want: "CODEX_HOME (agent.codex.home) " + root + "/codex is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		// CFGDIR is the directory the config file is written to.
		name:  "the config file in the workspace root",
		agent: `workspace_root: CFGDIR`,
		want: "the config file CFGDIR/wecodex.yaml is inside agent.workspace_root CFGDIR" +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "a secret file in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q\nredis:\n  password_file: %q", root, filepath.Join(root, "token")),
		want: "the secret file redis.password_file " + root + "/token is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "state directory in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q", root),
		env:   []string{"XDG_STATE_HOME=" + filepath.Join(root, "xdg")},
		want: "wecodex's state directory " + root + "/xdg/wecodex is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "a readable path that holds the workspaces",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [/usr, %q]", root, dir),
		want: "agent.sandbox.read[1] " + dir + " holds agent.workspace_root " + root +
			": every conversation's commands would read every workspace; list the directories they need inside it instead",
	}, {
		name:  "a readable path inside the workspaces",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(root, "shared")),
		want: "agent.sandbox.read[0] " + root + "/shared is inside agent.workspace_root " + root +
			": every conversation's commands would read the workspaces there; remove it",
	}, {
		name:  "a readable path inside CODEX_HOME",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(home, "sessions")),
		want: "agent.sandbox.read[0] " + home + "/sessions is inside CODEX_HOME (agent.codex.home) " + home +
			", which no conversation's commands may read; remove it",
	}, {
		name:  "a readable path inside the state directory",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(state, "wecodex", "cache")),
		want: "agent.sandbox.read[0] " + state + "/wecodex/cache is inside wecodex's state directory " + state +
			"/wecodex, which no conversation's commands may read; remove it",
	}, {
		name:  "workspaces in the platform minimum",
		agent: `workspace_root: /usr/local/wecodex`,
		want: "agent.workspace_root /usr/local/wecodex is inside /usr, which Codex lets every command read: " +
			"each conversation would read every workspace; move the workspace root out of it",
	}, {
		name:  "the profile in CODEX_HOME/config.toml",
		agent: fmt.Sprintf("workspace_root: %q", root),
		toml:  "model = \"o3\"\n\n[permissions.wecodex.filesystem]\n\"/\" = \"write\"\n",
		want: home + "/config.toml line 3 defines the permission profile \"wecodex\", which wecodex sends with every thread: " +
			"Codex would merge its entries into it and widen what every conversation reaches; rename or remove it (agent.sandbox says what conversations reach)",
	}, {
		name:  "the profile in agent.codex.config",
		agent: fmt.Sprintf("workspace_root: %q\n  codex:\n    config:\n      permissions.wecodex.filesystem.\":root\": write", root),
		want: "agent.codex.config.permissions.wecodex.filesystem.\":root\": wecodex sends its own permission profile \"wecodex\" with every thread, " +
			"and Codex would merge this into it; remove it (agent.sandbox says what conversations reach)",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(root, "token"), "a-token\n")
			if tc.toml != "" {
				writeFile(t, filepath.Join(home, "config.toml"), tc.toml)
			}
			cfg := writeConfig(t, "")
			cfgDir := filepath.Dir(cfg)
			writeFile(t, cfg, "log:\n  format: json\nagent:\n  "+strings.ReplaceAll(tc.agent, "CFGDIR", cfgDir)+"\n")
			tc.want = strings.ReplaceAll(tc.want, "CFGDIR", cfgDir)
			cmd := exec.Command(wecodexBin, "serve", "--config", cfg)
			cmd.Env = append(envWithout(os.Environ(), "CODEX_HOME", "XDG_STATE_HOME", "HOME"),
				append([]string{"HOME=" + dir, "CODEX_HOME=" + home, "XDG_STATE_HOME=" + state}, tc.env...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
				t.Fatalf("serve: %v, want exit 1; stderr:\n%s", err, &stderr)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				var rec map[string]any
				if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == "serve failed" {
					got = append(got, fmt.Sprint(rec["err"]))
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("serve failed with %q\nwant %q\nstderr:\n%s", got, tc.want, &stderr)
			}
		})
	}
}
