package demo

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
)

// TestMakeDemoStopsCleanlyOnCtrlC runs `make demo` as a terminal would and
// presses Ctrl-C: SIGINT to the whole foreground process group (make, the
// demo, serve). make then dies of the signal, as any make does, but says no
// "make: *** … Error" (the demo exits 0; `go run` would exit 1), and the
// address the demo prints is the one serve listens on, not a fixed 8080.
func TestMakeDemoStopsCleanlyOnCtrlC(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command(makeBin, "demo", "BIN="+t.TempDir(), "CODEX_BIN="+codextest.CodexBin(t))
	cmd.Dir = moduleRoot(t)
	// Port 0: the address is the one serve picks, which the demo must print.
	cmd.Env = append(os.Environ(), "WECODEX_SERVER_ADDR=127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })

	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var all []string
	// A safety net against a hang, never an assertion about speed: the
	// first build of both binaries can take minutes on a loaded machine.
	deadline := time.After(5 * time.Minute)
	next := func() (string, bool) {
		select {
		case l, ok := <-lines:
			if ok {
				all = append(all, l)
			}
			return l, ok
		case <-deadline:
			t.Fatalf("make demo hung; output so far:\n%s", strings.Join(all, "\n"))
			return "", false
		}
	}

	listening := regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:\d+) `)
	printed := regexp.MustCompile(`^  wecodex demo: open http://(127\.0\.0\.1:\d+)/playground$`)
	var served, shown string
	// serve logs its playground line, on which the demo prints its banner,
	// just before its listening line: the two may come in either order.
	for shown == "" || served == "" {
		l, ok := next()
		if !ok {
			t.Fatalf("make demo ended before printing the playground URL:\n%s", strings.Join(all, "\n"))
		}
		if m := listening.FindStringSubmatch(l); m != nil {
			served = m[1]
		}
		if m := printed.FindStringSubmatch(l); m != nil {
			shown = m[1]
		}
	}
	if shown != served || strings.HasSuffix(shown, ":8080") {
		t.Errorf("the demo printed %s, serve listens on %q: want the address serve listens on", shown, served)
	}

	if err := syscall.Kill(-pgid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := next(); !ok {
			break
		}
	}
	err = cmd.Wait()
	text := strings.Join(all, "\n")
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	// make re-raises the SIGINT it got on itself: the shell shows ^C and
	// nothing else. An exit code instead (2) means a recipe failed.
	if err != nil {
		ws := exit.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Errorf("make demo ended with %v, want killed by its own SIGINT (or exit 0)\n%s", err, text)
		}
	}
	for _, l := range all {
		if strings.HasPrefix(l, "make: ***") || strings.HasPrefix(l, "wecodex-demo:") || strings.HasPrefix(l, "exit status") {
			t.Errorf("an error line after Ctrl-C: %q", l)
		}
	}
	if !strings.Contains(text, "level=INFO msg=stopped") {
		t.Errorf("serve did not log stopped:\n%s", text)
	}
}
