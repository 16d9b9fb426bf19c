package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/sandbox"
)

// The "bare app-server, serve's sandbox" row: the smallest client again,
// but its thread/start carries what `wecodex serve` sends for a
// conversation under agent.codex.sandbox workspace-write (the bench's serve
// setup): approvalPolicy on-request (serve's default; approval: deny only
// decides how the bot answers) and, instead of sandbox, a per-thread
// permission profile confining the thread to its own workspace. Codex
// enforces that profile with sandboxed fs helpers (codex-linux-sandbox ...
// --codex-run-as-fs-helper) that plain workspace-write does not run, so
// dividing serve's tree by this one leaves out what the profile costs in
// Codex and keeps what wecodex adds.
//
// The profile is made by serve's own pieces (package sandbox, and
// codex.ThreadConfig as the Agent calls it) from the config serve reads in
// the bench's setup, so a change to serve's profile changes this row too;
// TestServeSandboxThreadIsServes holds both to what serve sent.

// serveLayout is where serve would run: its config file, the
// conversation's workspace, and its environment besides the bench's own
// (serveproc.Start: the bench's, WECODEX_* left out, then env).
type serveLayout struct {
	configFile, cwd string
	env             map[string]string
}

// getenv is serve's environment variable key.
func (l serveLayout) getenv(key string) string {
	if v, ok := l.env[key]; ok {
		return v
	}
	if strings.HasPrefix(key, configs.EnvPrefix) {
		return ""
	}
	return os.Getenv(key)
}

// stateDir is configs.StateDir as serve, in its environment, finds it.
func (l serveLayout) stateDir() string {
	if d := l.getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "wecodex")
	}
	if h := l.getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "wecodex")
	}
	return ""
}

// serveThread is the thread/start params serve sends for l.cwd.
func serveThread(l serveLayout) (map[string]any, error) {
	cfg, _, err := configs.Check(l.configFile)
	if err != nil {
		return nil, fmt.Errorf("serve's config %s: %w", l.configFile, err)
	}
	c := cfg.Agent.Codex
	sb, err := sandbox.New(cfg, sandbox.Service{ConfigFile: l.configFile, CodexHome: c.CodexHome(l.getenv), StateDir: l.stateDir()}, nil)
	if err != nil {
		return nil, err
	}
	if sb == nil {
		return nil, errors.New("serve's config confines no conversation")
	}
	return map[string]any{
		"cwd": l.cwd, "approvalPolicy": c.ApprovalPolicy,
		"config": codex.ThreadConfig(sb.Confine(l.cwd), l.cwd, acpbridge.DefaultMode, codex.Installation(c.Bin)),
	}, nil
}

// newServeLayout lays out under dir what serve would for conversation:
// its config file (the serve row's, serveConfig), the conversation's
// workspace and private temporary directory; env is the app-server's, and
// what serve runs with besides the bench's environment.
func newServeLayout(dir, codexBin, conversation string, env map[string]string) (serveLayout, error) {
	cfg := serveConfig("", codexBin, dir)
	l := serveLayout{configFile: filepath.Join(dir, "wecodex.yaml"), cwd: bot.WorkspaceDir(cfg.Workspace, conversation), env: env}
	for _, d := range []string{l.cwd, bot.WorkspaceTmp(l.cwd)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return l, err
		}
	}
	return l, os.WriteFile(l.configFile, []byte(cfg.YAML()), 0o600)
}
