package store

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisProc is a redis-server of the test's own on a free loopback port,
// so a test can kill it, restart it empty or freeze it without touching the
// Redis other tests share. It keeps nothing on disk: a restart is empty.
type redisProc struct {
	t    testing.TB
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd has exited and been waited for
	args []string
}

// startRedisProc starts redis-server with extra arguments, skipping the
// test (visibly) when the binary is missing.
func startRedisProc(t testing.TB, extra ...string) *redisProc {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed: skipping a test that kills and restarts its own Redis (apt-get install redis-server)")
	}
	r := &redisProc{t: t, dir: t.TempDir(), args: extra}
	for attempt := 0; ; attempt++ {
		r.port = freePort(t)
		err := r.start()
		if err == nil {
			break
		}
		if attempt == 4 {
			t.Fatal(err)
		}
	}
	t.Cleanup(r.kill)
	return r
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (r *redisProc) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// start runs redis-server and waits until it answers PING.
func (r *redisProc) start() error {
	args := append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(r.port), "--save", "", "--appendonly", "no",
		"--dir", r.dir, "--logfile", filepath.Join(r.dir, "redis.log")}, r.args...)
	r.cmd = exec.Command("redis-server", args...)
	if err := r.cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	cmd, done := r.cmd, make(chan struct{})
	r.done = done
	go func() { _ = cmd.Wait(); close(done) }()
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer c.Close()
	for {
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			r.cmd = nil
			return fmt.Errorf("redis-server on port %d exited: %s\n%s", r.port, cmd.ProcessState, log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the server with SIGKILL (a frozen one too) and waits until it
// has exited and its port refuses connections. Signals go through the
// os.Process handle only: never a raw pid, which could be stale or -1.
func (r *redisProc) kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.done
	r.cmd = nil
	for {
		c, err := net.Dial("tcp", r.Addr())
		if err != nil {
			return
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
}

// restartEmpty kills the server and starts a new, empty one on the same port.
func (r *redisProc) restartEmpty() {
	r.t.Helper()
	r.kill()
	if err := r.start(); err != nil {
		r.t.Fatal(err)
	}
}

// freeze and thaw stop and continue the server (SIGSTOP, SIGCONT): it keeps
// its connections and data but answers nothing meanwhile.
func (r *redisProc) freeze() { r.signal(syscall.SIGSTOP) }
func (r *redisProc) thaw()   { r.signal(syscall.SIGCONT) }

func (r *redisProc) signal(sig syscall.Signal) {
	r.t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatalf("signal redis-server: %v", err)
	}
}

// openProcStore opens a Store on r.
func openProcStore(t testing.TB, r *redisProc) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{Addrs: []string{r.Addr()}, Prefix: "wecodex-test:"}, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
