// Package codextest runs the real `codex` binary offline in tests: it finds
// the pinned binary, starts a scripted Responses API server
// (internal/scriptedmodel), and prepares a CODEX_HOME pointing at it and a
// workspace directory, all removed when the test ends.
package codextest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/procgroup"
)

// BinEnv names the variable that points tests at the codex binary; the
// Makefile exports it.
const BinEnv = "WECODEX_TEST_CODEX_BIN"

// CodexBin returns the path of the pinned codex binary: $WECODEX_TEST_CODEX_BIN,
// else <module root>/.tools/codex/node_modules/.bin/codex. It fails the test
// when neither exists; a missing agent is never a reason to skip.
func CodexBin(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(BinEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("codex not installed: %s=%s: %v (run `make tools`)", BinEnv, p, err)
		}
		return p
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("codex not installed: find module root: %v (run `make tools`)", err)
	}
	p := filepath.Join(root, ".tools", "codex", "node_modules", ".bin", "codex")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("codex not installed: %v: run `make tools`", err)
	}
	return p
}

// moduleRoot walks up from the working directory (a test runs in its
// package's directory) to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Harness is one offline Codex setup for a test.
type Harness struct {
	Bin       string                // the codex binary
	Server    *scriptedmodel.Server // the scripted model; inspect Requests()
	Home      string                // CODEX_HOME, with config.toml written
	Workspace string                // an empty directory to run Codex in
	// ShellHome is an empty directory given to Codex as HOME, so the
	// commands it runs never read the operator's shell startup files:
	// Debian's bash reads ~/.bashrc when its stdin is a socket (as Codex
	// runs commands) and SHLVL is below 2 (under nohup, cron or CI), and
	// whatever that prints becomes part of every command's output.
	ShellHome string
	// Env is os.Environ() plus CodexEnv: the whole environment to give a
	// codex process.
	Env []string

	allowServerErrors bool
}

// Start is StartWith with the default options (approval policy never,
// workspace-write sandbox).
func Start(t testing.TB, script scriptedmodel.Script) *Harness {
	t.Helper()
	return StartWith(t, script, scriptedmodel.HomeOptions{})
}

// StartWith starts a scripted model server answering from script and writes a
// CODEX_HOME for it with opts. At cleanup the server is closed and, unless
// [Harness.AllowServerErrors] was called, any request it could not answer
// from the script (an extra model request, an unexpected endpoint) fails the
// test.
func StartWith(t testing.TB, script scriptedmodel.Script, opts scriptedmodel.HomeOptions) *Harness {
	t.Helper()
	h := &Harness{
		Bin:       CodexBin(t),
		Server:    scriptedmodel.New(script),
		Home:      t.TempDir(),
		Workspace: t.TempDir(),
		ShellHome: t.TempDir(),
	}
	// Registered after the temporary directories, so it runs before they
	// are removed, and before any Codex process a test starts, so after
	// the test stopped those: what outlived them (waitCodexGone) ends first.
	t.Cleanup(func() { waitCodexGone(t, h.Home) })
	url, err := h.Server.Start()
	if err != nil {
		t.Fatalf("start scripted model server: %v", err)
	}
	// Registered before any Codex process a test starts, so it runs after
	// those are stopped (cleanups run last-in first-out).
	t.Cleanup(func() {
		if err := h.Server.Close(); err != nil {
			t.Errorf("close scripted model server: %v", err)
		}
		if err := h.Server.Err(); err != nil && !h.allowServerErrors {
			t.Errorf("scripted model server saw requests it could not answer:\n%v", err)
		}
	})
	if err := scriptedmodel.WriteCodexHome(h.Home, url, opts); err != nil {
		t.Fatalf("write CODEX_HOME: %v", err)
	}
	h.Env = append(os.Environ(), h.CodexEnv()...)
	return h
}

// CodexEnv is what a codex process needs added to its environment: the
// scripted model's CODEX_HOME and key, and HOME set to ShellHome.
func (h *Harness) CodexEnv() []string {
	return append(scriptedmodel.Env(h.Home), "HOME="+h.ShellHome)
}

// AllowServerErrors stops the harness from failing the test over requests
// the server could not answer (for a test that provokes them on purpose).
func (h *Harness) AllowServerErrors() { h.allowServerErrors = true }

// Command returns an exec.Cmd running codex with args in the workspace, with
// the harness environment, in a process group of its own: the pinned
// `codex` is a Node wrapper that (on Node < 22.15) spawns the native binary
// as a child, so killing the wrapper alone leaves Codex running. Stop it
// with [procgroup.Kill].
func (h *Harness) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(h.Bin, args...)
	cmd.Dir = h.Workspace
	cmd.Env = h.Env
	procgroup.Set(cmd)
	return cmd
}
