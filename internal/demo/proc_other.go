//go:build !unix

package demo

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func terminate(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) }

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }
