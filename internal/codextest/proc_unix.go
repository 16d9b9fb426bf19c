//go:build unix

package codextest

import (
	"fmt"
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup kills a started command made by [Harness.Command] together with
// everything in its process group (the native Codex behind the Node wrapper,
// and the commands Codex is running), as a crash or `kill -9` would. Call
// cmd.Wait afterwards to reap it.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("kill codex process group %d: %w", cmd.Process.Pid, err)
	}
	return nil
}
