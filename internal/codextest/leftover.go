package codextest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// waitCodexGone returns once no process runs with CODEX_HOME=home: a Codex
// app-server whose parent was killed (a test killing a bridge mid-turn)
// lives on until it reads its stdin's end, and writes to CODEX_HOME while it
// shuts down, so removing the directory before it is gone fails the test's
// cleanup with "directory not empty". A process still there after a minute
// is killed.
func waitCodexGone(t testing.TB, home string) {
	t.Helper()
	mark := []byte("CODEX_HOME=" + home + "\x00")
	guard := time.Now().Add(time.Minute) // a hang guard, not a speed limit
	for {
		pids := processesWithEnv(mark)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(guard) {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Logf("killed Codex processes still running on %s after a minute: %v", home, pids)
			guard = time.Now().Add(time.Minute)
		}
		time.Sleep(20 * time.Millisecond) // polling: a process's exit has no event to wait on here
	}
}

// processesWithEnv lists the live processes whose environment holds entry
// (NAME=value and its NUL), other than this one.
func processesWithEnv(entry []byte) []int {
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var pids []int
	for _, f := range envs {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(append([]byte{0}, b...), append([]byte{0}, entry...)) {
			continue // gone meanwhile, not ours, or not this home's
		}
		if zombie(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// zombie reports whether pid has exited and waits to be reaped: it holds
// no files any more.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}
