// Package sandbox owns what each conversation's commands reach of the
// filesystem under wecodex serve: it checks the layout of serve's paths
// against the config (refusing, with the key named, a layout whose hole
// Codex's sandbox could not close) and makes the Confinement each
// conversation's Codex thread is sent (codex.Options.Confine). cmd/wecodex
// wires it; a benchmark can make serve's profile with it too.
package sandbox

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/projects"
)

// systemDeny are the paths inside Codex's platform minimum, or shared by
// every conversation, that no conversation's commands may touch: the
// password hashes, the SSH host keys, TLS private keys, and the machine's
// shared temporary directories (each conversation has its own instead).
var systemDeny = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/ssh/ssh_host_*_key", "/etc/ssl/private",
	"/tmp", "/var/tmp",
}

// Sandbox is what each conversation's commands reach under
// agent.codex.sandbox workspace-write or read-only: agent.sandbox.read, their
// own workspace (read-only under read-only) and private temporary directory
// (bot.WorkspaceTmp), and none of deny.
type Sandbox struct {
	readOnly bool
	read     []string
	deny     []string
	// projects, when configured, gives the sessions working in a project
	// what they reach instead (projectConfine), and projectRead the
	// projects.<name>.sandbox.read lists, checked like read.
	projects    *projects.Registry
	projectRead map[string][]string
}

// protectedPath is a path whose contents no conversation may reach.
type protectedPath struct {
	what string // how an error names it, e.g. "CODEX_HOME (agent.codex.home)"
	path string
}

// minimalDirs are the directories of Codex's platform minimum (":minimal")
// that could hold a deployment's files; commands can always read them.
var minimalDirs = []string{"/bin", "/sbin", "/lib", "/lib64", "/usr", "/etc"}

// Service is where serve keeps what no conversation's commands may reach,
// besides the secret files its config names (configs.Config.SecretFilePaths).
type Service struct {
	// ConfigFile is the config file serve read ("" for none).
	ConfigFile string
	// CodexHome is the CODEX_HOME serve runs Codex with
	// (configs.CodexConfig.CodexHome).
	CodexHome string
	// StateDir is wecodex's state directory (configs.StateDir; "" for none).
	StateDir string
}

// New checks the layout of serve's paths (cfg, and svc, the files serve
// keeps) and returns the sandbox every conversation's commands run in, or
// nil when there is none (agent.kind acp, or agent.codex.sandbox
// danger-full-access). reg is the projects (nil for none). A refusal names
// the config keys it comes from.
//
// Codex mounts only what the profile names and hides a denied path even
// inside a mounted one. It keeps the denied paths hidden from a command an
// approver lets out of the sandbox too, while dropping everything else the
// profile names; so a directory that holds the workspaces cannot be denied
// (the approved command would lose its working directory), and must not be
// readable either. New refuses the layouts that would need it:
// CODEX_HOME, the config file or the state directory inside the workspace
// root (some conversation's workspace would hold it), an agent.sandbox.read
// entry that holds the workspace root or lies inside it or one of those, and
// a workspace root inside Codex's platform minimum.
func New(cfg *configs.Config, svc Service, reg *projects.Registry) (*Sandbox, error) {
	g := cfg.Agent
	if g.Kind != configs.AgentCodex || g.Codex.Sandbox == "danger-full-access" {
		return nil, nil
	}
	root, err := filepath.Abs(g.WorkspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("agent.workspace_root %s: %w", g.WorkspaceRoot, err)
	}
	for _, m := range minimalDirs {
		if pathWithin(root, m) {
			return nil, fmt.Errorf("agent.workspace_root %s is inside %s, which Codex lets every command read: "+
				"each conversation would read every workspace; move the workspace root out of it", root, m)
		}
	}
	var protected []protectedPath
	add := func(what, p string) error {
		if p == "" {
			return nil
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, p, err)
		}
		protected = append(protected, protectedPath{what, abs})
		return nil
	}
	if err := add("CODEX_HOME (agent.codex.home)", svc.CodexHome); err != nil {
		return nil, err
	}
	if err := add("the config file", svc.ConfigFile); err != nil {
		return nil, err
	}
	if err := add("wecodex's state directory", svc.StateDir); err != nil {
		return nil, err
	}
	secrets := cfg.SecretFilePaths()
	for _, key := range slices.Sorted(maps.Keys(secrets)) {
		if err := add("the secret file "+key, secrets[key]); err != nil {
			return nil, err
		}
	}
	for _, p := range protected {
		if pathWithin(p.path, root) {
			return nil, fmt.Errorf("%s %s is inside agent.workspace_root %s: a conversation whose workspace holds it would read it; "+
				"move one of them so neither contains the other", p.what, p.path, root)
		}
	}
	if err := checkCodexProfile(svc.CodexHome, g.Codex.Config); err != nil {
		return nil, err
	}
	s := &Sandbox{readOnly: g.Codex.Sandbox == "read-only", projects: reg}
	if s.read, err = checkSandboxRead("agent.sandbox.read", g.Sandbox.Read, root, protected); err != nil {
		return nil, err
	}
	if err := s.checkProjects(cfg, root, protected); err != nil {
		return nil, err
	}
	deny := slices.Clone(systemDeny)
	for _, d := range g.Sandbox.Deny {
		deny = append(deny, filepath.Clean(d))
	}
	for _, p := range protected {
		deny = append(deny, p.path)
	}
	// A path that holds the workspaces (the state directory by default,
	// /tmp when the workspace root is under it) stays unmounted instead:
	// no readable path holds it.
	deny = slices.DeleteFunc(deny, func(d string) bool { return pathWithin(root, d) })
	s.deny = outermost(deny)
	return s, nil
}

// checkSandboxRead checks the entries of an agent.sandbox.read list (key
// names it) against the layout and returns them cleaned.
func checkSandboxRead(key string, list []string, root string, protected []protectedPath) ([]string, error) {
	var out []string
	for i, r := range list {
		r = filepath.Clean(r)
		key := fmt.Sprintf("%s[%d] %s", key, i, r)
		switch {
		case pathWithin(root, r):
			return nil, fmt.Errorf("%s holds agent.workspace_root %s: every conversation's commands would read every workspace; "+
				"list the directories they need inside it instead", key, root)
		case pathWithin(r, root):
			return nil, fmt.Errorf("%s is inside agent.workspace_root %s: every conversation's commands would read the workspaces there; remove it", key, root)
		}
		for _, p := range protected {
			if pathWithin(r, p.path) {
				return nil, fmt.Errorf("%s is inside %s %s, which no conversation's commands may read; remove it", key, p.what, p.path)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// Confine is the Confinement of the conversation working in cwd (a
// codex.Options.Confine).
func (s *Sandbox) Confine(cwd string) codex.Confinement {
	if c, ok := s.projectConfine(cwd); ok {
		return c
	}
	tmp := bot.WorkspaceTmp(cwd)
	c := codex.Confinement{Read: s.read, Write: []string{tmp}, TmpDir: tmp}
	if s.readOnly {
		c.Read = append(slices.Clone(s.read), cwd)
	} else {
		c.Write = append(c.Write, cwd)
	}
	// A missing path needs no hiding, and bubblewrap could not make a
	// mount point for it inside a read-only directory.
	for _, d := range s.deny {
		if _, err := os.Lstat(d); err == nil || strings.ContainsRune(d, '*') {
			c.Deny = append(c.Deny, d)
		}
	}
	return c
}

// pathWithin reports whether path is dir or lies below it (both absolute and
// clean).
func pathWithin(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// outermost drops the duplicates of paths and every path that lies inside
// another one: bubblewrap cannot hide a path again inside one it hid.
func outermost(paths []string) []string {
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, func(a, b string) int { return len(a) - len(b) })
	var out []string
	for _, p := range sorted {
		if !slices.ContainsFunc(out, func(q string) bool { return pathWithin(p, q) }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Read is what every conversation's commands read besides their workspace
// and Codex's platform minimum (agent.sandbox.read, cleaned); a project's
// sandbox.read replaces it for its sessions.
func (s *Sandbox) Read() []string { return slices.Clone(s.read) }

// Deny is what no conversation's commands may reach, outermost paths only
// (before Confine leaves out what does not exist).
func (s *Sandbox) Deny() []string { return slices.Clone(s.deny) }
