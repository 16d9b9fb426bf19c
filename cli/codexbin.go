package cli

import (
	"os"
	"path/filepath"

	"github.com/wecodex/wecodex/configs"
)

// defaultCodexBin is agent.codex.bin's default: the bare name, which means
// "the Codex `make tools` pinned, when there is one, else PATH's".
const defaultCodexBin = "codex"

// PinnedCodex is where `make tools` installs the pinned Codex, relative to
// the checkout.
var PinnedCodex = filepath.Join(".tools", "codex", "node_modules", ".bin", "codex")

// ResolveCodexBin sets agent.codex.bin to the Codex every subcommand runs
// (serve, codex-acp, codex-login alike, so a login lands where the bot
// looks): a bin the config names is kept as it is; the default bare name
// becomes the pinned Codex of the checkout the binary was built in
// (bin/wecodex -> ../.tools), else of the working directory, else stays
// "codex" for PATH to find.
func ResolveCodexBin(cfg *configs.Config) {
	if cfg == nil || cfg.Agent.Codex.Bin != defaultCodexBin {
		return
	}
	if p := findPinnedCodex(codexSearchDirs()); p != "" {
		cfg.Agent.Codex.Bin = p
	}
}

// codexSearchDirs is where a checkout may be: the binary's directory's
// parent (bin/wecodex), the binary's directory, the working directory.
func codexSearchDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dirs = append(dirs, filepath.Dir(filepath.Dir(exe)), filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return dirs
}

// findPinnedCodex is the first dir's pinned Codex that is an executable
// file, as an absolute path, or "".
func findPinnedCodex(dirs []string) string {
	for _, d := range dirs {
		p := filepath.Join(d, PinnedCodex)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
		}
	}
	return ""
}
