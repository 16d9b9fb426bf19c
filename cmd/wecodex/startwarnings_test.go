package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/configs"
)

// startWarningPrefixes begin the lines startWarnings adds to check-config.
var startWarningPrefixes = []string{
	"warning: wecom: no channel is on",
	"warning: access: access lists are empty",
	"warning: redis.addr: empty: using an embedded",
	"warning: agent.codex.home: Codex is not logged in",
	"warning: agent.codex.sandbox: Codex could not find bubblewrap",
}

func withoutStartWarnings(stderr string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(stderr, "\n") {
		drop := false
		for _, p := range startWarningPrefixes {
			drop = drop || strings.HasPrefix(line, p)
		}
		if !drop {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestCheckConfigStartWarnings: check-config prints each warning serve
// logs at start (the same function makes both), and --strict exits 1 on
// them; a config that leaves nothing to warn about passes --strict.
func TestCheckConfigStartWarnings(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, "codex-home")
	bare := writeConfig(t, "agent:\n  codex:\n    home: "+codexHome+"\n")
	noBwrap := t.TempDir() // a PATH with no bwrap on it
	env := func(path string) []string {
		return append(envWithout(os.Environ(), "PATH", "HOME", "CODEX_HOME"), "HOME="+home, "PATH="+path)
	}
	want := "warning: wecom: no channel is on: set wecom.aibot (token and encoding_aes_key, or bot_id and secret), wecom.app, or playground.enabled; nobody can reach the bot\n" +
		"warning: access: access lists are empty: nobody may use the bot until access.allow_users, access.allow_chats or access.admins names someone\n" +
		"warning: redis.addr: empty: using an embedded in-memory Redis; nothing survives a restart and replicas cannot share state\n" +
		"warning: agent.codex.home: " + notLoggedIn + " (CODEX_HOME " + codexHome + ")\n" +
		"warning: agent.codex.sandbox: Codex could not find bubblewrap on PATH: install bubblewrap (apt-get install bubblewrap) so Codex's sandbox uses the system one\n"
	for _, tc := range []struct {
		name   string
		strict bool
		code   int
		stdout string
		tail   string
	}{
		{"warnings", false, 0, "config OK\n", ""},
		{"--strict", true, 1, "", bare + ": 5 warning(s) and --strict\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"check-config", "--config", bare}
			if tc.strict {
				args = append(args, "--strict")
			}
			r := runWithEnv(t, env(noBwrap), args...)
			if r.code != tc.code || r.stdout != tc.stdout || r.stderr != want+tc.tail {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr, tc.code, tc.stdout, want+tc.tail)
			}
		})
	}

	// Each warning goes away with its fix.
	bwrapDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(bwrapDir, "bwrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "auth.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	good := writeConfig(t, `redis:
  addr: 127.0.0.1:6379
wecom:
  aibot:
    bot_id: bot
    secret: s
    mode: longconn
agent:
  codex:
    home: `+codexHome+`
access:
  allow_users: [alice]
`)
	r := runWithEnv(t, env(bwrapDir), "check-config", "--config", good, "--strict")
	if r.code != 0 || r.stdout != "config OK\n" || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit 0, config OK, no warning", r.code, r.stdout, r.stderr)
	}
}

func runWithEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := command(t, args...)
	cmd.Env = env
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// startConfig is the config startServe runs with yaml, as serve loads it.
func startConfig(t *testing.T, yaml string) *configs.Config {
	t.Helper()
	cfg, _, err := configs.Check(writeConfig(t, "server:\n  addr: 127.0.0.1:0\nlog:\n  format: json\n"+yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
