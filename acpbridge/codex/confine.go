package codex

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
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
	return ThreadConfig(a.opts.Confine(cwd), cwd, mode, installation(a.bin, a.pkg)), nil
}

// ThreadConfig is the per-thread config (thread/start's and thread/resume's
// "config") that confines a thread working in cwd to c, as mode allows it:
// the permission profile ProfileID, what c reads, writes and denies besides
// Codex's platform minimum and install (what of Codex itself its commands
// must read: Installation), and c.TmpDir as the commands' TMPDIR. It is
// what the Agent sends under Options.Confine, made where anyone can make it
// again (a benchmark sending serve's thread/start) without an Agent.
func ThreadConfig(c Confinement, cwd string, mode acpbridge.Mode, install []string) map[string]any {
	c = inMode(c, mode)
	fs := map[string]any{":minimal": "read"}
	for _, p := range append(slices.Clone(install), c.Read...) {
		fs[p] = "read"
	}
	for _, p := range c.Write {
		fs[p] = "write"
	}
	kept := append(slices.Clone(install), cwd) // what no deny entry may hold
	for _, p := range c.Deny {
		if !holdsAny(p, kept) {
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
	return cfg
}

// Installation is what of Codex itself a confined command must read when
// bin (a path or a name on PATH, as Options.Bin) runs Codex: its sandbox
// helper is Codex's own binary, run again inside bubblewrap. For the npm
// package's launcher that is the platform directory of the native binary
// the Agent runs instead (the binary, and the tools it puts on the
// commands' PATH); otherwise the binary file alone. It is nil when bin
// cannot be found.
func Installation(bin string) []string {
	if native, pkg, ok := nativeCodex(bin); ok {
		return installation(native, pkg)
	}
	return installation(bin, "")
}

// installation is Installation for bin as the Agent runs it: the native
// binary behind the launcher whose package root is pkg, or (pkg "") bin as
// it is.
func installation(bin, pkg string) []string {
	if pkg != "" {
		if real, err := filepath.EvalSymlinks(bin); err == nil {
			return []string{filepath.Dir(filepath.Dir(real))}
		}
		return []string{filepath.Dir(filepath.Dir(bin))}
	}
	p, err := exec.LookPath(bin)
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
