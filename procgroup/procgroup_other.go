//go:build !unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
)

// Set does nothing: this platform has no process groups to put cmd in.
func Set(*exec.Cmd) {}

// Kill kills cmd itself; what it started may outlive it here.
func Kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// Terminate kills cmd: this platform has no SIGTERM to ask with.
func Terminate(cmd *exec.Cmd) error { return Kill(cmd) }
