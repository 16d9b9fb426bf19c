package serveproc

import (
	"fmt"
	"os"
	"path/filepath"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// Codex is a CODEX_HOME on the scripted model and the empty HOME its
// threads snapshot their login shell from (an operator's profile would
// measure this machine, not wecodex).
type Codex struct {
	Home, ShellHome string
}

// NewCodex writes a CODEX_HOME under dir for the scripted model at url.
func NewCodex(dir, url string) (Codex, error) {
	c := Codex{Home: filepath.Join(dir, "codex-home"), ShellHome: filepath.Join(dir, "home")}
	if err := os.MkdirAll(c.ShellHome, 0o700); err != nil {
		return c, err
	}
	if err := sm.WriteCodexHome(c.Home, url, sm.HomeOptions{SandboxMode: "danger-full-access"}); err != nil {
		return c, fmt.Errorf("codex home: %w", err)
	}
	return c, nil
}

// Env is what a replica running this Codex adds to its environment.
func (c Codex) Env() []string { return append(sm.Env(c.Home), "HOME="+c.ShellHome) }

// Cleanup collects functions to run at the end, for the fakes of
// internal/wecomtest that want a test's Cleanup.
type Cleanup struct{ fns []func() }

// Cleanup registers f.
func (c *Cleanup) Cleanup(f func()) { c.fns = append(c.fns, f) }

// Run runs what was registered, last first.
func (c *Cleanup) Run() {
	for i := len(c.fns) - 1; i >= 0; i-- {
		c.fns[i]()
	}
}
