// Package serveproc runs real `wecodex serve` processes for the benchmarks
// and load runs (internal/benchbridge, internal/benchscale,
// internal/loadcluster): the real Codex on the scripted model, a real
// Redis (one server or a Cluster), WeCom played by internal/wecomtest. It
// writes each replica's config, starts it, follows its JSON log and stops
// or kills it with the app-server it started.
//
// It must not import testing: the commands using it are not tests.
package serveproc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The AI bot's credentials in these runs (not secrets).
const (
	Token  = "benchAIBotToken"
	AESKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	BotID  = "aibot-bench"
	Secret = "bench-longconn-secret"
)

// Config is what a replica's config says.
type Config struct {
	// RedisAddrs is one address, or a Cluster's nodes comma-separated.
	RedisAddrs, RedisPassword, Prefix string
	// Codex is the codex launcher; Workspace the workspace root.
	Codex, Workspace string
	// WSURL, when set, is the fake long-connection server: the replica
	// runs wecom.aibot.mode longconn against it.
	WSURL string
	// UpdateInterval is cards.update_interval ("" is the default, 500ms).
	UpdateInterval string
	// DrainTimeout is server.drain_timeout ("" is the default).
	DrainTimeout string
	// Sandbox is agent.codex.sandbox ("" is danger-full-access: the load
	// runs measure wecodex, not Codex's sandbox set-up).
	Sandbox string
}

// YAML is the replica's config file.
func (c Config) YAML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server:\n  addr: 127.0.0.1:0\n")
	if c.DrainTimeout != "" {
		fmt.Fprintf(&b, "  drain_timeout: %s\n", c.DrainTimeout)
	}
	fmt.Fprintf(&b, "log:\n  format: json\nredis:\n  addr: %q\n  password: %q\n  prefix: %q\n", c.RedisAddrs, c.RedisPassword, c.Prefix)
	fmt.Fprintf(&b, "wecom:\n  allowed_hosts: [127.0.0.1]\n  aibot:\n    token: %s\n    encoding_aes_key: %s\n", Token, AESKey)
	if c.WSURL != "" {
		fmt.Fprintf(&b, "    mode: longconn\n    bot_id: %s\n    secret: %s\n    ws_url: %q\n    welcome: \"\"\n", BotID, Secret, c.WSURL)
	}
	sandbox := c.Sandbox
	if sandbox == "" {
		sandbox = "danger-full-access"
	}
	fmt.Fprintf(&b, "agent:\n  kind: codex\n  codex:\n    bin: %q\n    sandbox: %s\n  workspace_root: %q\n  turn_timeout: 5m\n  approval: deny\n",
		c.Codex, sandbox, c.Workspace)
	fmt.Fprintf(&b, "access:\n  allow_users: [\"*\"]\n")
	if c.UpdateInterval != "" {
		fmt.Fprintf(&b, "cards:\n  update_interval: %s\n", c.UpdateInterval)
	}
	return b.String()
}

// Proc is one running `wecodex serve`.
type Proc struct {
	Name string
	Base string // http://127.0.0.1:PORT
	cmd  *exec.Cmd

	mu      sync.Mutex
	lines   []map[string]any
	changed chan struct{}

	exited chan struct{}
}

// Start writes cfg into dir and starts bin serve with env (plus nothing
// else of this process's WECODEX_* variables), and returns once it listens.
func Start(ctx context.Context, name, bin, dir string, cfg Config, env []string) (*Proc, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "wecodex.yaml")
	if err := os.WriteFile(path, []byte(cfg.YAML()), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--config", path)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WECODEX_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, changed: make(chan struct{}), exited: make(chan struct{})}
	listening := make(chan string, 1)
	go p.follow(stderr, listening)
	select {
	case addr, ok := <-listening:
		if !ok {
			<-p.exited
			return nil, fmt.Errorf("%s exited before listening:\n%s", name, p.Tail(20))
		}
		p.Base = "http://" + addr
		return p, nil
	case <-ctx.Done():
		p.Kill()
		return nil, ctx.Err()
	}
}

func (p *Proc) follow(stderr interface{ Read([]byte) (int, error) }, listening chan<- string) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sent := false
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			rec = map[string]any{"raw": sc.Text()}
		}
		p.mu.Lock()
		p.lines = append(p.lines, rec)
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
		if rec["msg"] == "listening" && !sent {
			listening <- rec["addr"].(string)
			sent = true
		}
	}
	if !sent {
		close(listening)
	}
	_ = p.cmd.Wait()
	close(p.exited)
}

// PID is the serve process's.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Exited is closed once the process was reaped.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// WaitLog waits for a log line whose msg is msg.
func (p *Proc) WaitLog(ctx context.Context, msg string) (map[string]any, error) {
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if l["msg"] == msg {
				p.mu.Unlock()
				return l, nil
			}
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-p.exited:
			return nil, fmt.Errorf("%s exited without logging %q", p.Name, msg)
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no log line %q: %w", p.Name, msg, ctx.Err())
		}
	}
}

// Lines returns the log lines whose msg is msg.
func (p *Proc) Lines(msg string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []map[string]any
	for _, l := range p.lines {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// Tail is the last n log lines with level WARN or ERROR, or raw, as text.
func (p *Proc) Tail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.lines {
		if l["level"] == "WARN" || l["level"] == "ERROR" || l["raw"] != nil {
			b, _ := json.Marshal(l)
			out = append(out, string(b))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n")
}

// Terminate sends SIGTERM (the drain) and returns at once.
func (p *Proc) Terminate() { _ = p.cmd.Process.Signal(syscall.SIGTERM) }

// Stop drains the process with SIGTERM and waits, killing it after limit.
func (p *Proc) Stop(limit time.Duration) error {
	p.Terminate()
	select {
	case <-p.exited:
		return nil
	case <-time.After(limit):
		p.Kill()
		return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", p.Name, limit)
	}
}

// Kill is SIGKILL for the process and the app-server it started (which
// leads a process group of its own), as a machine or a pod dying takes
// both, and waits for it.
func (p *Proc) Kill() {
	groups := childGroups(p.PID())
	_ = p.cmd.Process.Kill()
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	<-p.exited
}

// childGroups are the process groups led by pid's children.
func childGroups(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(field)
			if err != nil || child <= 1 {
				continue
			}
			if pgid, err := syscall.Getpgid(child); err == nil && pgid == child {
				out = append(out, child)
			}
		}
	}
	return out
}

// LoadAvg is /proc/loadavg's three averages.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ErrExited says a replica is gone.
var ErrExited = errors.New("serveproc: replica exited")
