//go:build unix

package codex

import (
	"os/exec"
	"syscall"
)

// processGroupAttr puts the app-server in its own process group so killing
// it also kills the native binary the npm launcher starts.
func processGroupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
