package codexacp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wecodex/wecodex/cli"
)

// LeanName is the lean binary's file name, beside wecodex's.
const LeanName = "wecodex-codex-acp"

// BuildIDFlag, the lean binary's only argument of its own, makes it print
// cli.BuildID and exit.
const BuildIDFlag = "--build-id"

// LeanMain is the lean binary's main: BuildIDFlag alone prints its build
// id, anything else is Main.
func LeanMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == BuildIDFlag {
		fmt.Fprintln(stdout, cli.BuildID)
		return cli.ExitOK
	}
	return Main(args, stdin, stdout, stderr, nil)
}

// buildIDTimeout bounds asking the lean binary its build id; a binary that
// does not answer in it is not used.
const buildIDTimeout = 10 * time.Second

// Exec replaces the process with the lean binary beside the running one,
// passing it args and the environment, when that binary is the same build
// (cli.BuildID). It returns only when it did not: nil when there is nothing
// to hand over to (this build has no id, no lean binary is there, or args
// ask for the build id, which only the lean binary answers), else why the
// lean binary is unusable, for Main to warn about.
func Exec(args []string) error {
	if cli.BuildID == "" || (len(args) > 0 && args[0] == BuildIDFlag) {
		return nil
	}
	lean, err := leanPath()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := sameBuild(lean); err != nil {
		return err
	}
	err = syscall.Exec(lean, append([]string{lean}, args...), os.Environ())
	return fmt.Errorf("exec %s: %w", lean, err)
}

// leanPath is the lean binary beside the running executable (symlinks
// resolved, so a wecodex linked into PATH finds the one it was installed
// with).
func leanPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	lean := filepath.Join(filepath.Dir(exe), LeanName)
	if _, err := os.Stat(lean); err != nil {
		return "", err
	}
	return lean, nil
}

// sameBuild asks lean for its build id and compares it with this one's.
func sameBuild(lean string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildIDTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, lean, BuildIDFlag).Output()
	if err != nil {
		return fmt.Errorf("%s %s: %w", lean, BuildIDFlag, err)
	}
	if id := strings.TrimSpace(string(out)); id != cli.BuildID {
		return fmt.Errorf("%s is another build (build id %q, this wecodex's is %q); install both binaries from one build", lean, id, cli.BuildID)
	}
	return nil
}
