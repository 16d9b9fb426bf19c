//go:build !unix

package codex

import (
	"os"
	"os/exec"
	"syscall"
)

func processGroupAttr() *syscall.SysProcAttr { return nil }

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// outputPipe returns a pipe for the app-server's stdout.
func outputPipe() (r, w *os.File, err error) { return os.Pipe() }
