//go:build unix

package procgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// Set makes cmd, once started, the leader of a new process group. Call it
// before cmd.Start.
func Set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Kill sends SIGKILL to cmd's whole group, a stopped process included. A
// command not started, or a group already gone, is not an error. Reap cmd
// with cmd.Wait afterwards.
func Kill(cmd *exec.Cmd) error { return signal(cmd, syscall.SIGKILL) }

// Terminate asks cmd's whole group to exit (SIGTERM).
func Terminate(cmd *exec.Cmd) error { return signal(cmd, syscall.SIGTERM) }

func signal(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("signal process group %d with %v: %w", cmd.Process.Pid, sig, err)
	}
	return nil
}
