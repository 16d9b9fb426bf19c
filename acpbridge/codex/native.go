package codex

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The npm package @openai/codex installs bin/codex.js, a Node launcher that
// finds the native binary in a platform package and runs it. On Node older
// than 22.15 it stays in front as a parent process (~45 MiB per replica);
// wecodex runs the native binary itself, with the environment the launcher
// would have given it.

// launcherPackage is the launcher's package name in its package.json.
const launcherPackage = "@openai/codex"

// nativeTargets maps GOOS/GOARCH to the launcher's target triple and the
// platform package that holds the binary (bin/codex.js,
// PLATFORM_PACKAGE_BY_TARGET).
var nativeTargets = map[string][2]string{
	"linux/amd64":  {"x86_64-unknown-linux-musl", "@openai/codex-linux-x64"},
	"linux/arm64":  {"aarch64-unknown-linux-musl", "@openai/codex-linux-arm64"},
	"darwin/amd64": {"x86_64-apple-darwin", "@openai/codex-darwin-x64"},
	"darwin/arm64": {"aarch64-apple-darwin", "@openai/codex-darwin-arm64"},
}

// nativeCodex resolves bin (a path or a name on PATH) and, when it is the
// npm launcher, returns the native binary it runs and the package root the
// launcher reports to it. ok is false for anything else (a native binary
// already, a wrapper script of the operator's) or when the native binary
// cannot be found: then bin is run as it is.
func nativeCodex(bin string) (native, packageRoot string, ok bool) {
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || filepath.Base(real) != "codex.js" {
		return "", "", false
	}
	root := filepath.Dir(filepath.Dir(real))
	if !isLauncherPackage(filepath.Join(root, "package.json")) {
		return "", "", false
	}
	target, known := nativeTargets[runtime.GOOS+"/"+runtime.GOARCH]
	if !known {
		return "", "", false
	}
	for _, vendor := range vendorDirs(root, target[1]) {
		exe := filepath.Join(vendor, target[0], "bin", "codex")
		if st, err := os.Stat(exe); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return exe, root, true
		}
	}
	return "", "", false
}

func isLauncherPackage(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var pkg struct {
		Name string `json:"name"`
	}
	return json.Unmarshal(b, &pkg) == nil && pkg.Name == launcherPackage
}

// vendorDirs lists where the launcher looks for the binary, in its order:
// the platform package as Node's require.resolve finds it from the
// launcher (node_modules of each ancestor directory), then the launcher
// package's own vendor directory.
func vendorDirs(root, platformPackage string) []string {
	var dirs []string
	for dir := filepath.Join(root, "bin"); ; dir = filepath.Dir(dir) {
		if filepath.Base(dir) != "node_modules" {
			dirs = append(dirs, filepath.Join(dir, "node_modules", platformPackage, "vendor"))
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	return append(dirs, filepath.Join(root, "vendor"))
}

// launcherEnv is env as the launcher passes it to the native binary: it
// names the package root and says npm manages the install, replacing any
// other package manager's marker.
func launcherEnv(env []string, packageRoot string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "CODEX_MANAGED_BY_") || strings.HasPrefix(kv, "CODEX_MANAGED_PACKAGE_ROOT=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CODEX_MANAGED_PACKAGE_ROOT="+packageRoot, "CODEX_MANAGED_BY_NPM=1")
}
