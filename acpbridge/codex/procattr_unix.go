//go:build unix

package codex

import (
	"fmt"
	"os"
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

// outputPipe returns a pipe for the app-server's stdout whose read end is a
// plain blocking file, outside Go's network poller. A pollable pipe wakes the
// poller for every line Codex writes, even while the read loop waits out
// readPace, and those wake-ups were most of the bridge's CPU time; a
// blocking read wakes nobody until the read loop asks.
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	// Held so no process started meanwhile inherits the pipe before it is
	// close-on-exec (Pipe2 would do it at once, but not every unix has it).
	syscall.ForkLock.RLock()
	err = syscall.Pipe(p[:])
	if err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("pipe: %w", err)
	}
	return os.NewFile(uintptr(p[0]), "codex-stdout"), os.NewFile(uintptr(p[1]), "codex-stdout-w"), nil
}
