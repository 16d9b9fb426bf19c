// Package redisserver runs a redis-server of one test's own. It imports no
// wecodex package, so the store's own tests use it as every other test does.
package redisserver

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

// Server is a redis-server of one test's own on a free loopback port,
// which the test may start late, kill, restart empty, or freeze (SIGSTOP)
// without touching the Redis other tests share. It keeps nothing on disk.
type Server struct {
	t    testing.TB
	port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd has exited and been waited for
	// Durable keeps the data across Kill and Start (an append-only file
	// synced on every write), as a Redis with AOF does; set before Start.
	Durable bool
}

// New reserves a free port for a redis-server and stops the
// server, if running, when the test ends; Start starts it. The test is
// skipped, saying why, when redis-server is not installed.
func New(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed: skipping a test that runs its own Redis (apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Server{t: t, port: l.Addr().(*net.TCPAddr).Port, dir: t.TempDir()}
	_ = l.Close()
	t.Cleanup(r.Kill)
	return r
}

// Addr is host:port of the server.
func (r *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.port) }

// Start runs the server, empty, and waits until it answers PING.
func (r *Server) Start() {
	r.t.Helper()
	aof := []string{"--appendonly", "no"}
	if r.Durable {
		aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	cmd := exec.Command("redis-server", append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(r.port),
		"--save", "", "--dir", r.dir, "--logfile", filepath.Join(r.dir, "redis.log")}, aof...)...)
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("start redis-server: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	r.cmd, r.done = cmd, done
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer c.Close()
	for {
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			r.cmd = nil
			r.t.Fatalf("redis-server on port %d exited: %s\n%s", r.port, cmd.ProcessState, log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends the server with SIGKILL (a frozen one too) and waits until it
// has exited and its port refuses connections. Signals go through the
// os.Process handle only, never a raw pid.
func (r *Server) Kill() {
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
		_ = c.Close()
		time.Sleep(10 * time.Millisecond)
	}
}

// Restart kills the server and starts it again on the same port: empty
// unless Durable.
func (r *Server) Restart() {
	r.t.Helper()
	r.Kill()
	r.Start()
}

// Freeze stops the server (SIGSTOP): it keeps its connections and data but
// answers nothing until Thaw (SIGCONT).
func (r *Server) Freeze() { r.signal(syscall.SIGSTOP) }

// Thaw continues a frozen server.
func (r *Server) Thaw() { r.signal(syscall.SIGCONT) }

func (r *Server) signal(sig syscall.Signal) {
	r.t.Helper()
	if r.cmd == nil {
		r.t.Fatalf("signal redis-server: not running")
	}
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.t.Fatalf("signal redis-server: %v", fmt.Errorf("%v: %w", sig, err))
	}
}
