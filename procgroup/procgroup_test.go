//go:build unix

package procgroup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startTree starts a shell, in a group of its own, that starts a sleeping
// child. Both hold the write end of the returned pipe, so the pipe reads EOF
// only once both are gone. It returns after the child has started.
func startTree(t *testing.T) (*exec.Cmd, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command("sh", "-c", `sleep 1000 & printf r >&3; wait`)
	cmd.ExtraFiles = []*os.File{w}
	Set(cmd)
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, make([]byte, 1)); err != nil {
		t.Fatalf("shell did not start its child: %v", err)
	}
	return cmd, r
}

func TestSignalReachesTheWholeGroup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		signal func(*exec.Cmd) error
		status string
	}{
		{"Kill", Kill, "signal: killed"},
		{"Terminate", Terminate, "signal: terminated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, held := startTree(t)
			if err := tc.signal(cmd); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil || err.Error() != tc.status {
				t.Fatalf("shell ended with %v, want %q", err, tc.status)
			}
			// EOF once the child has let go of the pipe too: it was in the
			// group. The deadline is a safety net for a child that was
			// missed (it sleeps 1000 s), not a speed check.
			_ = held.SetReadDeadline(time.Now().Add(time.Minute))
			if n, err := held.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("after %s the pipe read %d bytes, %v; want EOF, the child gone with its group", tc.name, n, err)
			}
			// The group is gone now: signalling it again is no error.
			if err := tc.signal(cmd); err != nil {
				t.Errorf("%s of a group already gone: %v", tc.name, err)
			}
		})
	}
}

// Without Set, the child is in our group and Kill reaches only the
// command: the pipe stays open. This is what Set is for.
func TestWithoutSetTheChildSurvives(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", `sleep 1000 & echo $! >&3; wait`)
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(r, &pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	child, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	defer child.Kill()
	if err := child.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the child of a command killed alone is gone (%v); the test cannot tell Set's effect", err)
	}
}

func TestKillOfAnUnstartedCommand(t *testing.T) {
	if err := Kill(exec.Command("true")); err != nil {
		t.Fatalf("Kill of a command never started: %v", err)
	}
}
