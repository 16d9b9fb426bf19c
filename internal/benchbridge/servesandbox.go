package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/internal/serveproc"
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
// serve builds the profile in cmd/wecodex (conversationSandbox.confine,
// package main) and acpbridge/codex (Agent.threadConfigIn, unexported), so
// it is rebuilt here from the same inputs: configs.DefaultSandboxRead,
// bot.WorkspaceTmp, codex.ProfileID, and cmd/wecodex's systemDeny copied.
// TestServeSandboxThreadIsServes pins it to what serve sent.

// systemDeny is cmd/wecodex's systemDeny.
var systemDeny = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/ssh/ssh_host_*_key", "/etc/ssl/private",
	"/tmp", "/var/tmp",
}

// serveLayout is what serve's profile is made from: the codex launcher,
// CODEX_HOME, serve's config file, its state directory ("" for none), the
// workspace root and the conversation's workspace in it.
type serveLayout struct {
	codex, codexHome, configFile, stateDir, root, cwd string
}

// serveThread is the thread/start params serve sends for l.cwd.
func serveThread(l serveLayout) (map[string]any, error) {
	native, pkg, err := nativeCodex(l.codex)
	if err != nil {
		return nil, err
	}
	install, err := filepath.Abs(native)
	if err != nil {
		return nil, err
	}
	if pkg != "" {
		install = filepath.Dir(filepath.Dir(install)) // the npm platform directory
	}
	tmp := bot.WorkspaceTmp(l.cwd)
	fs := map[string]any{":minimal": "read", install: "read"}
	for _, p := range configs.DefaultSandboxRead {
		fs[p] = "read"
	}
	fs[tmp], fs[l.cwd] = "write", "write"
	deny := slices.Clone(systemDeny)
	for _, p := range []string{l.codexHome, l.configFile, l.stateDir} {
		if p != "" {
			deny = append(deny, p)
		}
	}
	deny = slices.DeleteFunc(deny, func(d string) bool { return within(l.root, d) })
	for _, d := range outermost(deny) {
		if _, err := os.Lstat(d); err != nil && !strings.ContainsRune(d, '*') {
			continue
		}
		if within(install, d) || within(l.cwd, d) {
			continue
		}
		fs[d] = "deny"
	}
	return map[string]any{
		"cwd": l.cwd, "approvalPolicy": "on-request",
		"config": map[string]any{
			"default_permissions":      codex.ProfileID,
			"permissions":              map[string]any{codex.ProfileID: map[string]any{"filesystem": fs}},
			"shell_environment_policy": map[string]any{"set": map[string]any{"TMPDIR": tmp}},
		},
	}, nil
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// outermost is cmd/wecodex's: duplicates and paths inside another dropped.
func outermost(paths []string) []string {
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, func(a, b string) int { return len(a) - len(b) })
	var out []string
	for _, p := range sorted {
		if !slices.ContainsFunc(out, func(q string) bool { return within(p, q) }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// newServeLayout lays out under dir what serve would for conversation:
// its config file, the workspace root, the conversation's workspace and
// private temporary directory; env is the app-server's (HOME decides
// serve's state directory).
func newServeLayout(dir, codexBin, conversation string, env map[string]string) (serveLayout, error) {
	root := filepath.Join(dir, "workspaces")
	l := serveLayout{codex: codexBin, codexHome: env["CODEX_HOME"], configFile: filepath.Join(dir, "wecodex.yaml"),
		root: root, cwd: bot.WorkspaceDir(root, conversation)}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		l.stateDir = filepath.Join(d, "wecodex")
	} else if h := env["HOME"]; h != "" {
		l.stateDir = filepath.Join(h, ".local", "state", "wecodex")
	}
	for _, d := range []string{l.cwd, bot.WorkspaceTmp(l.cwd)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return l, err
		}
	}
	cfg := serveproc.Config{Codex: codexBin, Workspace: root, Sandbox: "workspace-write"}
	return l, os.WriteFile(l.configFile, []byte(cfg.YAML()), 0o600)
}
