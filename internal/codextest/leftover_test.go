package codextest

import (
	"os/exec"
	"slices"
	"testing"
)

// A process started with a harness's CODEX_HOME is found by it, and not
// once it has exited and been reaped.
func TestProcessesWithEnvFindsTheHomesProcesses(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command("sleep", "60")
	cmd.Env = []string{"CODEX_HOME=" + home}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	mark := []byte("CODEX_HOME=" + home + "\x00")
	if got := processesWithEnv(mark); !slices.Equal(got, []int{cmd.Process.Pid}) {
		t.Errorf("processes with %s = %v, want [%d]", mark, got, cmd.Process.Pid)
	}
	if got := processesWithEnv([]byte("CODEX_HOME=" + home + "-other\x00")); len(got) != 0 {
		t.Errorf("another home's processes = %v, want none", got)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := processesWithEnv(mark); len(got) != 0 {
		t.Errorf("after it exited: %v, want none", got)
	}
}
