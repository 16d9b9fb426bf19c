package main

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

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

// conversationSandbox is what each conversation's commands reach under
// agent.codex.sandbox workspace-write or read-only: agent.sandbox.read, their
// own workspace (read-only under read-only) and private temporary directory
// (bot.WorkspaceTmp), and none of deny.
type conversationSandbox struct {
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

// newConversationSandbox checks the layout of serve's paths and returns the
// sandbox every conversation's commands run in, or nil when there is none
// (agent.kind acp, or agent.codex.sandbox danger-full-access). configPath is
// the config file serve read ("" for none).
//
// Codex mounts only what the profile names and hides a denied path even
// inside a mounted one. It keeps the denied paths hidden from a command an
// approver lets out of the sandbox too, while dropping everything else the
// profile names; so a directory that holds the workspaces cannot be denied
// (the approved command would lose its working directory), and must not be
// readable either. serve refuses the layouts that would need it:
// CODEX_HOME, the config file or the state directory inside the workspace
// root (some conversation's workspace would hold it), an agent.sandbox.read
// entry that holds the workspace root or lies inside it or one of those, and
// a workspace root inside Codex's platform minimum.
func newConversationSandbox(cfg *configs.Config, configPath string, getenv func(string) string, reg *projects.Registry) (*conversationSandbox, error) {
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
	if err := add("CODEX_HOME (agent.codex.home)", g.Codex.CodexHome(getenv)); err != nil {
		return nil, err
	}
	if err := add("the config file", configPath); err != nil {
		return nil, err
	}
	if err := add("wecodex's state directory", configs.StateDir()); err != nil {
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
	if err := checkCodexProfile(g.Codex.CodexHome(getenv), g.Codex.Config); err != nil {
		return nil, err
	}
	s := &conversationSandbox{readOnly: g.Codex.Sandbox == "read-only", projects: reg}
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

// confine is the Confinement of the conversation working in cwd.
func (s *conversationSandbox) confine(cwd string) codex.Confinement {
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

// logSandbox says at startup what the conversations' commands reach.
func logSandbox(log *slog.Logger, cfg *configs.Config, s *conversationSandbox) {
	switch {
	case cfg.Agent.Kind != configs.AgentCodex:
		log.Info("agent.kind acp: the agent's own sandbox, if any, confines its commands; agent.sandbox does not apply")
	case s == nil:
		log.Warn("agent.codex.sandbox is danger-full-access: every conversation's commands reach all the service user can, other conversations' workspaces and CODEX_HOME included")
	default:
		log.Info("each conversation's commands run in Codex's sandbox", "sandbox", cfg.Agent.Codex.Sandbox, "read", s.read, "deny", s.deny)
	}
}

// checkCodexProfile refuses a Codex configuration that would widen the
// profile wecodex confines threads with: Codex merges config layers table by
// table, so a [permissions.wecodex] of CODEX_HOME/config.toml or of
// agent.codex.config would add its entries to the ones each thread is sent.
// (sandbox_mode, [sandbox_workspace_write] and default_permissions need no
// check: the per-thread profile outranks them.)
func checkCodexProfile(home string, overrides map[string]string) error {
	prefix := "permissions." + codex.ProfileID
	for k := range overrides {
		if k == "permissions" || k == prefix || strings.HasPrefix(k, prefix+".") {
			return fmt.Errorf("agent.codex.config.%s: wecodex sends its own permission profile %q with every thread, and Codex would merge this into it; remove it (agent.sandbox says what conversations reach)", k, codex.ProfileID)
		}
	}
	path := filepath.Join(home, "config.toml")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		Permissions map[string]any `toml:"permissions"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := doc.Permissions[codex.ProfileID]; !ok {
		return nil
	}
	where := path
	if n := profileLine(string(b)); n > 0 {
		where = fmt.Sprintf("%s line %d", path, n)
	}
	return fmt.Errorf("%s defines the permission profile %q, which wecodex sends with every thread: Codex would merge its entries into it and widen what every conversation reaches; "+
		"rename or remove it (agent.sandbox says what conversations reach)", where, codex.ProfileID)
}

var profileLineRe = regexp.MustCompile(`^\s*\[*\s*permissions\s*\.\s*["']?` + regexp.QuoteMeta(codex.ProfileID) + `\b|^\s*permissions\s*=.*\b` + regexp.QuoteMeta(codex.ProfileID) + `\b`)

// profileLine is the 1-based line of config.toml that names the profile, 0
// when none does plainly.
func profileLine(text string) int {
	for i, l := range strings.Split(text, "\n") {
		if profileLineRe.MatchString(l) {
			return i + 1
		}
	}
	return 0
}
