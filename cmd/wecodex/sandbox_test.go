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

// serve refuses a layout whose hole Codex's sandbox could not close, and
// says why, before it connects to anything; it tells package sandbox where
// its own files are as its flags and environment put them (the config file,
// XDG_STATE_HOME, CODEX_HOME). Every refusal is sandbox's
// TestNewRefusesAnUnsafeLayout.
func TestServeRefusesAnUnsafeSandboxLayout(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "workspaces")
	home := filepath.Join(dir, "codex-home")
	for _, tc := range []struct {
		name  string
		agent string // the agent section's keys, indented by two spaces
		env   []string
		want  string
	}{{
		// CFGDIR is the directory the config file is written to.
		name:  "the config file in the workspace root",
		agent: `workspace_root: CFGDIR`,
		want: "the config file CFGDIR/wecodex.yaml is inside agent.workspace_root CFGDIR" +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "state directory in the workspace root",
		agent: fmt.Sprintf("workspace_root: %q", root),
		env:   []string{"XDG_STATE_HOME=" + filepath.Join(root, "xdg")},
		want: "wecodex's state directory " + root + "/xdg/wecodex is inside agent.workspace_root " + root +
			": a conversation whose workspace holds it would read it; move one of them so neither contains the other",
	}, {
		name:  "a readable path inside CODEX_HOME",
		agent: fmt.Sprintf("workspace_root: %q\n  sandbox:\n    read: [%q]", root, filepath.Join(home, "sessions")),
		want: "agent.sandbox.read[0] " + home + "/sessions is inside CODEX_HOME (agent.codex.home) " + home +
			", which no conversation's commands may read; remove it",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, "")
			cfgDir := filepath.Dir(cfg)
			writeFile(t, cfg, "log:\n  format: json\nagent:\n  "+strings.ReplaceAll(tc.agent, "CFGDIR", cfgDir)+"\n")
			tc.want = strings.ReplaceAll(tc.want, "CFGDIR", cfgDir)
			cmd := exec.Command(wecodexBin, "serve", "--config", cfg)
			cmd.Env = append(envWithout(os.Environ(), "CODEX_HOME", "XDG_STATE_HOME", "HOME"),
				append([]string{"HOME=" + dir, "CODEX_HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(dir, "state")}, tc.env...)...)
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
