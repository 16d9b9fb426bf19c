package codex

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// The pinned codex is the npm launcher; the Agent runs the native binary
// behind it, with the environment the launcher gives it, and a turn works.
func TestNpmLauncherReplacedByNativeBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ctx := testCtx(t)
	h := codextest.Start(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Native answer."))))
	native, root, ok := nativeCodex(h.Bin)
	if !ok {
		t.Fatalf("nativeCodex(%s) found no native binary", h.Bin)
	}
	target := nativeTargets[runtime.GOOS+"/"+runtime.GOARCH]
	if !strings.HasSuffix(native, filepath.Join(target[1], "vendor", target[0], "bin", "codex")) {
		t.Fatalf("native binary = %s, want the %s package's", native, target[1])
	}
	a := agentOn(t, h, Options{})
	if a.bin != native {
		t.Fatalf("Agent runs %s, want %s", a.bin, native)
	}
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec, stop := prompt(t, ctx, a, id, "Hello.")
	if stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	equalLines(t, "answer", texts(rec), []string{"message Native answer."})

	pid := a.appServerPid(t)
	exe, err := os.Readlink("/proc/" + itoa(pid) + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(native); exe != want {
		t.Fatalf("app-server process runs %s, want %s", exe, want)
	}
	environ, err := os.ReadFile("/proc/" + itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Split(string(environ), "\x00")
	for _, want := range []string{"CODEX_MANAGED_PACKAGE_ROOT=" + root, "CODEX_MANAGED_BY_NPM=1"} {
		if indexOf(env, want) < 0 {
			t.Fatalf("app-server environment lacks %s", want)
		}
	}
}

// A launcher whose platform package is missing, or a program that is not
// the launcher, is run as it is.
func TestNativeBinaryFallsBackToBin(t *testing.T) {
	h := codextest.Start(t, sm.Sequence())
	launcher, err := filepath.EvalSymlinks(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	// A copy of the launcher package alone, as if its optional platform
	// dependency had not been installed.
	pkg := filepath.Join(t.TempDir(), "node_modules", "@openai", "codex")
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(filepath.Dir(filepath.Dir(launcher)), "package.json"), filepath.Join(pkg, "package.json"))
	lonely := filepath.Join(pkg, "bin", "codex.js")
	copyFile(t, launcher, lonely)
	for _, bin := range []string{lonely, "/bin/sh", filepath.Join(t.TempDir(), "missing")} {
		if native, _, ok := nativeCodex(bin); ok {
			t.Fatalf("nativeCodex(%s) = %s, want none", bin, native)
		}
		a := New(Options{Bin: bin})
		_ = a.Close()
		if a.bin != bin {
			t.Fatalf("Agent for %s runs %s", bin, a.bin)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
