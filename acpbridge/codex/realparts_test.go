package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/store"
)

// chunkSignal is a recorder that says when the first agent text arrived:
// by then the read loop has handled the turn's turn/started and the item's
// item/started.
type chunkSignal struct {
	recorder
	once sync.Once
	seen chan struct{}
}

func newChunkSignal() *chunkSignal { return &chunkSignal{seen: make(chan struct{})} }

func (r *chunkSignal) Update(u acp.SessionUpdate) {
	r.recorder.Update(u)
	if u.AgentMessageChunk != nil || u.AgentThoughtChunk != nil {
		r.once.Do(func() { close(r.seen) })
	}
}

func promptInto(ctx context.Context, a *Agent, id acp.SessionId, text string, rec *chunkSignal) <-chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		stop, err := a.Prompt(ctx, id, acpbridge.TextPrompt(text), rec)
		ch <- promptResult{&rec.recorder, stop, err}
	}()
	return ch
}

// ownRedis is a redis-server of this test's own on a free loopback port, so
// the test may stop it without touching anyone else's Redis.
type ownRedis struct {
	cmd  *exec.Cmd
	addr string
}

func startOwnRedis(t *testing.T) *ownRedis {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server (install it to run this test): %v", err)
	}
	r := &ownRedis{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return r
}

func (r *ownRedis) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal redis-server: %v", err)
	}
}

// openOwnStore opens the store on r, retrying while redis-server starts up.
func openOwnStore(t *testing.T, ctx context.Context, r *ownRedis) *store.Phases {
	t.Helper()
	for {
		s, err := store.Open(ctx, store.Options{Addrs: []string{r.addr}, Prefix: "wecodex-test:stall:"}, slog.New(slog.DiscardHandler))
		if err == nil {
			t.Cleanup(func() { _ = s.Close() })
			return store.NewPhases(s)
		}
		if ctx.Err() != nil {
			t.Fatalf("open store on %s: %v", r.addr, err)
		}
		time.Sleep(10 * time.Millisecond) // waiting for the server to listen
	}
}

// waitFor polls cond until it holds; ctx (the test's hang guard) ends it
// with a failure naming what never happened.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s never happened", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// nativePid is the app-server's pid.
func (a *Agent) appServerPid(t *testing.T) int {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn == nil {
		t.Fatal("no app-server running")
	}
	return a.conn.cmd.Process.Pid
}

// loadedThreads asks the running app-server which threads it holds.
func (a *Agent) loadedThreads(t *testing.T, ctx context.Context) []string {
	t.Helper()
	a.mu.Lock()
	c := a.conn
	a.mu.Unlock()
	var r struct {
		Data []string `json:"data"`
	}
	if err := c.call(ctx, "thread/loaded/list", threadLoadedListParams{}, &r); err != nil {
		t.Fatalf("thread/loaded/list: %v", err)
	}
	return r.Data
}

// procUsage is a process's open files and resident memory (Linux /proc).
func procUsage(t *testing.T, pid int) (fds int, rssKiB int) {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("count open files of %d: %v", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			rssKiB, _ = strconv.Atoi(f[1])
		}
	}
	return len(ents), rssKiB
}

func bodyHas(body []byte, text string) bool {
	quoted, _ := json.Marshal(text)
	return strings.Contains(string(body), strings.Trim(string(quoted), `"`))
}
