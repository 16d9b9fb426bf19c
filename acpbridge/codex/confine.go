package codex

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wecodex/wecodex/acpbridge"
)

// ProfileID names the permission profile every confined thread runs under.
// An admin's CODEX_HOME/config.toml must not define [permissions.wecodex]:
// Codex merges config layers table by table, so its entries would be added
// to the ones sent here.
const ProfileID = "wecodex"

// Confinement is what one thread's commands may reach of the filesystem.
// The Agent sends it as a Codex permission profile in the per-thread config
// of every thread/start and thread/resume. Codex 0.171.0 lets that layer
// outrank everything an admin can configure (sandbox_mode in
// CODEX_HOME/config.toml or `-c`, a config profile, default_permissions), and
// enforces it with bubblewrap: a path no entry names is not mounted at all.
type Confinement struct {
	// Read are the paths the commands may read, besides Codex's platform
	// minimum (":minimal": /bin, /sbin, /lib*, /usr, /etc, /dev, /proc) and
	// the Codex installation itself, which its sandbox helper runs from.
	Read []string
	// Write are the paths they may read and write.
	Write []string
	// Deny are paths the commands may neither read nor write, even inside
	// Read or Write (or the platform minimum), and even when an approver
	// lets a command out of the sandbox: Codex then replaces the rest of
	// the profile with write access to everything, but keeps these. A
	// pattern with * or ** is matched by Codex against what exists when the
	// thread loads. A Deny entry must not lie inside another one: bubblewrap
	// cannot mount the second over the first, and Codex then refuses the
	// thread. An entry that holds the thread's working directory or Codex's
	// installation is left out, or the approved command would lose its
	// working directory or Codex's sandbox helper.
	Deny []string
	// TmpDir becomes the commands' TMPDIR; it should be in Write.
	TmpDir string
}

// errNoWorkspace is a thread resumed without a working directory while the
// Agent confines threads: its profile could not be built, and without one
// Codex would fall back to CODEX_HOME's sandbox settings.
var errNoWorkspace = errors.New("no workspace is known for the thread, so its sandbox cannot be set")

// threadConfig is the per-thread config that confines a thread working in
// cwd, or nil when the Agent does not confine threads.
func (a *Agent) threadConfig(cwd string) (map[string]any, error) {
	return a.threadConfigIn(cwd, acpbridge.DefaultMode)
}

// threadConfigIn is threadConfig with the profile in mode (inMode).
func (a *Agent) threadConfigIn(cwd string, mode acpbridge.Mode) (map[string]any, error) {
	if a.opts.Confine == nil {
		return nil, nil
	}
	if cwd == "" {
		return nil, errNoWorkspace
	}
	c := inMode(a.opts.Confine(cwd), mode)
	install := a.installation()
	fs := map[string]any{":minimal": "read"}
	for _, p := range append(install, c.Read...) {
		fs[p] = "read"
	}
	for _, p := range c.Write {
		fs[p] = "write"
	}
	for _, p := range c.Deny {
		if !holdsAny(p, append(install, cwd)) {
			fs[p] = "deny"
		}
	}
	cfg := map[string]any{
		"default_permissions": ProfileID,
		"permissions":         map[string]any{ProfileID: map[string]any{"filesystem": fs}},
	}
	if c.TmpDir != "" {
		cfg["shell_environment_policy"] = map[string]any{"set": map[string]any{"TMPDIR": c.TmpDir}}
	}
	return cfg, nil
}

// installation is what of Codex itself a confined command must read: its
// sandbox helper is Codex's own binary, run again inside bubblewrap. For the
// npm package that is the platform directory (the binary, and the tools it
// puts on the commands' PATH); otherwise the binary file alone.
func (a *Agent) installation() []string {
	if a.pkg != "" {
		if real, err := filepath.EvalSymlinks(a.bin); err == nil {
			return []string{filepath.Dir(filepath.Dir(real))}
		}
		return []string{filepath.Dir(filepath.Dir(a.bin))}
	}
	p, err := exec.LookPath(a.bin)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	if abs, err := filepath.Abs(p); err == nil {
		return []string{abs}
	}
	return nil
}

// sandbox is the legacy per-thread sandbox mode to send: none when threads
// are confined by a profile, which Codex does not combine with one.
func (a *Agent) sandbox() string {
	if a.opts.Confine != nil {
		return ""
	}
	return a.opts.Sandbox
}

// holdsAny reports whether dir is one of paths or holds one of them.
func holdsAny(dir string, paths []string) bool {
	for _, p := range paths {
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
