//go:build !unix

package codex

import (
	"os/exec"
	"syscall"
)

func processGroupAttr() *syscall.SysProcAttr { return nil }

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
