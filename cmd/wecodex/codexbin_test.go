package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/cli"
)

// TestCodexLoginFindsThePinnedCodex: right after `make run` (bin/wecodex
// beside .tools/), codex-login logs the pinned Codex in with a PATH that has
// no codex on it, from another directory, and says which CODEX_HOME it used.
// The login is the real `codex login --with-api-key`, which works offline.
func TestCodexLoginFindsThePinnedCodex(t *testing.T) {
	realCodex := os.Getenv("WECODEX_TEST_CODEX_BIN")
	if realCodex == "" {
		t.Skip("WECODEX_TEST_CODEX_BIN is not set (make tools installs Codex)")
	}
	checkout := t.TempDir()
	pinned := filepath.Join(checkout, cli.PinnedCodex)
	if err := os.MkdirAll(filepath.Dir(pinned), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realCodex, pinned); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(checkout, "bin", "wecodex")
	copyExecutable(t, wecodexBin, bin)
	home := filepath.Join(t.TempDir(), "codex-home")
	cfg := writeConfig(t, "agent:\n  codex:\n    home: "+home+"\n")

	path := "/usr/bin:/bin"
	for _, d := range strings.Split(path, ":") {
		if _, err := os.Stat(filepath.Join(d, "codex")); err == nil {
			t.Skipf("the test's PATH %s has a codex in %s", path, d)
		}
	}
	cmd := exec.Command(bin, "codex-login", "--config", cfg, "--with-api-key")
	cmd.Dir = t.TempDir()
	// node, which the npm wrapper needs, may live beside the real codex's PATH.
	cmd.Env = append(envWithout(os.Environ(), "PATH", "CODEX_HOME"), "PATH="+nodeDir(t)+":"+path)
	cmd.Stdin = strings.NewReader("sk-test-pinned\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("codex-login: %v\n%s", err, out)
	}
	want := "wecodex codex-login: logging " + pinned + " in with CODEX_HOME=" + home + " (config " + cfg + ")\n"
	if !strings.HasPrefix(string(out), want) {
		t.Fatalf("codex-login said:\n%s\nwant it to start with:\n%s", out, want)
	}
	auth, err := os.ReadFile(filepath.Join(home, "auth.json"))
	if err != nil || !strings.Contains(string(auth), "sk-test-pinned") {
		t.Fatalf("no login in %s: %v %s", home, err, auth)
	}
}

// nodeDir is the directory of the node the npm-installed codex runs on.
func nodeDir(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH for the npm-installed Codex")
	}
	d := filepath.Dir(node)
	if _, err := os.Stat(filepath.Join(d, "codex")); err == nil {
		t.Skipf("node's directory %s has a codex too", d)
	}
	return d
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
