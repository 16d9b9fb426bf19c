package main

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
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// The AI bot's credentials in the end-to-end tests (not secrets).
const (
	e2eToken  = "e2eAIBotToken"
	e2eAESKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	e2eBotID  = "aibot-e2e"
)

// e2e is one end-to-end setup: the real Codex driven by a scripted model, a
// real Redis under a prefix of its own, and WeCom's response_url endpoint.
// Any number of `wecodex serve` processes can run on it.
type e2e struct {
	h         *codextest.Harness
	redisURL  *redis.Options
	redisAddr string // overrides redisURL.Addr: a Cluster's nodes or Sentinels, comma-separated
	master    string // redis.master_name, for Sentinel
	prefix    string
	urls      *wecomtest.ResponseURLServer
	workspace string
	acp       bool // agent.kind acp (wecodex codex-acp) instead of codex
	// drainTimeout is server.drain_timeout; empty means the default (2m).
	drainTimeout string
	extra        string // YAML sections appended to the config
	// approval is extra agent.* YAML (agent.approval, approval_timeout);
	// access replaces the access section's lists. Empty: the defaults.
	approval, access string
	sandbox          string // agent.codex.sandbox
	// env is added to every serve process's environment: WECODEX_ variables
	// override config keys (wecom.aibot.mode longconn, for one).
	env []string
}

func newE2E(t *testing.T, script scriptedmodel.Script) *e2e {
	t.Helper()
	// No sandbox: whether bubblewrap is installed would add a machine-
	// dependent warning to every card. The scripted turns run no command.
	return newE2EIn(t, script, "danger-full-access")
}

// newE2EIn is newE2E with Codex in the given sandbox mode (agent.codex.sandbox
// too): approvals need one, since nothing escapes danger-full-access.
func newE2EIn(t *testing.T, script scriptedmodel.Script, sandbox string) *e2e {
	t.Helper()
	h := codextest.StartWith(t, script, scriptedmodel.HomeOptions{SandboxMode: sandbox})
	opt := testenv.RedisOptions(t)
	prefix := testenv.Prefix(t, "e2e")
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = urls.Close() })
	return &e2e{h: h, redisURL: opt, prefix: prefix, urls: urls, workspace: t.TempDir(), sandbox: sandbox}
}

// config is the serve config for this setup plus extra YAML sections.
func (e *e2e) config(path, streamWindow string) string {
	agent := "kind: codex"
	if e.acp {
		// The external agent is this very binary's codex-acp, reading the
		// same file for agent.codex.
		agent = fmt.Sprintf("kind: acp\n  acp:\n    command: [%q, codex-acp, --config, %q]", wecodexBin, path)
	}
	drain := e.drainTimeout
	if drain == "" {
		drain = "2m"
	}
	access := e.access
	if access == "" {
		access = "allow_users: [alice, bob, carol]"
	}
	approval := e.approval
	if approval == "" {
		approval = "approval: deny"
	}
	return fmt.Sprintf(`server:
  addr: 127.0.0.1:0
  drain_timeout: %s
log:
  format: json
redis:
  addr: %q
  master_name: %q
  password: %q
  db: %d
  prefix: %q
wecom:
  allowed_hosts: [127.0.0.1] # the fakes: media and response_url on loopback
  aibot:
    token: %s
    encoding_aes_key: %s
    stream_window: %s
agent:
  %s
  codex:
    bin: %q
    sandbox: %s
  workspace_root: %q
  turn_timeout: 2m
  %s
access:
  %s
cards:
  update_interval: 50ms
`, drain, e.redisAddrs(), e.master, e.redisURL.Password, e.redisURL.DB, e.prefix, e2eToken, e2eAESKey, streamWindow, agent, e.h.Bin, e.sandbox, e.workspace, approval, access) + e.extra
}

func (e *e2e) redisAddrs() string {
	if e.redisAddr != "" {
		return e.redisAddr
	}
	return e.redisURL.Addr
}

// botProc is one running `wecodex serve` process and a WeCom simulator aimed at it.
type botProc struct {
	base string
	cmd  *exec.Cmd
	sim  *wecomtest.Sim
	logs *logLines

	stopOnce sync.Once
	stopFn   func()
	exited   chan struct{} // closed once the process has been waited for
	exit     int
}

type logLines struct {
	mu      sync.Mutex
	lines   []map[string]any
	changed chan struct{} // closed and replaced on every add
}

func (l *logLines) add(rec map[string]any) {
	l.mu.Lock()
	l.lines = append(l.lines, rec)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	l.mu.Unlock()
}

// find returns the lines for which match is true, in order, and a channel
// closed when the next line arrives.
func (l *logLines) find(match func(map[string]any) bool) ([]map[string]any, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, r := range l.lines {
		if match(r) {
			out = append(out, r)
		}
	}
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return out, l.changed
}

// withMsg returns the lines whose msg is msg and whose attrs include every
// key and value of attrs.
func (l *logLines) withMsg(msg string, attrs map[string]any) []map[string]any {
	got, _ := l.find(matchLine(msg, attrs))
	return got
}

// waitFor waits until a line with msg and attrs is logged, and returns it.
func (l *logLines) waitFor(t *testing.T, ctx context.Context, msg string, attrs map[string]any) map[string]any {
	t.Helper()
	for {
		got, changed := l.find(matchLine(msg, attrs))
		if len(got) > 0 {
			return got[0]
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no log line %q %v; logs:\n%s", msg, attrs, l)
		}
	}
}

func matchLine(msg string, attrs map[string]any) func(map[string]any) bool {
	return func(r map[string]any) bool {
		if r["msg"] != msg {
			return false
		}
		for k, v := range attrs {
			if r[k] != v {
				return false
			}
		}
		return true
	}
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, r := range l.lines {
		j, _ := json.Marshal(r)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// serve starts `wecodex serve` (the binary TestMain built) on a free port
// with the harness's Codex environment, and waits until it listens. It is
// stopped with SIGTERM at the end of the test, or by stop.
func (e *e2e) serve(t *testing.T, streamWindow string) *botProc {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "wecodex.yaml")
	if err := os.WriteFile(cfg, []byte(e.config(cfg, streamWindow)), 0o600); err != nil {
		t.Fatal(err)
	}
	return serveWithEnv(t, cfg, e.serveEnv(), e.urls)
}

// serveEnv is the environment of a `wecodex serve` process: the harness's,
// where only the test's config counts, so WECODEX_* is left out, and then
// e.env.
func (e *e2e) serveEnv() []string {
	var env []string
	for _, kv := range e.h.Env {
		if !strings.HasPrefix(kv, "WECODEX_") {
			env = append(env, kv)
		}
	}
	return append(env, e.env...)
}

// serveWithEnv starts `wecodex serve --config cfg` with exactly env, and waits
// until it listens; see e2e.serve.
func serveWithEnv(t *testing.T, cfg string, env []string, urls *wecomtest.ResponseURLServer) *botProc {
	t.Helper()
	cmd := exec.Command(wecodexBin, "serve", "--config", cfg)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &botProc{cmd: cmd, logs: &logLines{}, exited: make(chan struct{})}
	listening := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				rec = map[string]any{"raw": sc.Text()}
			}
			b.logs.add(rec)
			if rec["msg"] == "listening" {
				listening <- rec["addr"].(string)
			}
		}
		close(listening)
	}()
	addr, ok := <-listening
	if !ok {
		<-drained
		_ = cmd.Wait()
		t.Fatalf("serve exited before listening; logs:\n%s", b.logs)
	}
	b.base = "http://" + addr
	b.sim, err = wecomtest.New(wecomtest.Config{
		URL: b.base + "/wecom/aibot", Token: e2eToken, EncodingAESKey: e2eAESKey, AIBotID: e2eBotID,
		ResponseURLs: urls,
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-drained
		_ = cmd.Wait()
		b.exit = cmd.ProcessState.ExitCode()
		close(b.exited)
	}()
	b.stopFn = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-b.exited:
		case <-time.After(30 * time.Second):
			t.Errorf("serve did not stop within 30s of SIGTERM; killing it")
			killChildGroups(cmd.Process.Pid)
			_ = cmd.Process.Kill()
			<-b.exited
		}
	}
	t.Cleanup(func() { b.stop() })
	return b
}

// stop sends SIGTERM and waits for the process; it returns the exit code.
// A process that was already signalled takes this as its second signal.
func (b *botProc) stop() int {
	b.stopOnce.Do(b.stopFn)
	return b.exit
}

// signal sends sig to the process and returns at once.
func (b *botProc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := b.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("send %v to serve: %v", sig, err)
	}
}

// waitExit waits until the process exits by itself and returns its exit code.
func (b *botProc) waitExit(t *testing.T, ctx context.Context) int {
	t.Helper()
	select {
	case <-b.exited:
		return b.exit
	case <-ctx.Done():
		t.Fatalf("serve did not exit; logs:\n%s", b.logs)
		return -1
	}
}

// appServerGroups returns the process groups of the serve process's
// children that lead their own group: the Codex app-server (its npm wrapper
// and the native binary share the group).
func appServerGroups(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(field)
			if err != nil {
				continue
			}
			if pgid, err := syscall.Getpgid(child); err == nil && pgid == child {
				out = append(out, child)
			}
		}
	}
	return out
}

func killChildGroups(pid int) {
	for _, g := range appServerGroups(pid) {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
}

// within is a context for one step of a test: long enough for Codex on a
// busy 2-core machine, short enough that a hang fails instead of stalling.
func within(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// follow refreshes a stream every 50 ms until it finishes, and returns every
// distinct content seen, in order, with the finished frame last.
func follow(t *testing.T, ctx context.Context, sim *wecomtest.Sim, streamID string) (wecomtest.Frame, []string) {
	t.Helper()
	var seen []string
	f, err := sim.Follow(ctx, streamID, 50*time.Millisecond, func(f wecomtest.Frame) {
		if len(seen) == 0 || seen[len(seen)-1] != f.Content {
			seen = append(seen, f.Content)
		}
	})
	if err != nil {
		t.Fatalf("follow stream %s: %v (frames so far %q)", streamID, err, seen)
	}
	return f, seen
}

// waitForFrame refreshes a stream until its frame contains text: the card has
// caught up with what the model streamed before a gate.
func waitForFrame(t *testing.T, ctx context.Context, sim *wecomtest.Sim, streamID, text string) {
	t.Helper()
	for {
		f, err := sim.Refresh(ctx, streamID)
		if err != nil {
			t.Fatalf("waiting for %q on stream %s: %v", text, streamID, err)
		}
		if strings.Contains(f.Content, text) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("stream %s never showed %q; last frame %q", streamID, text, f.Content)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func statusCode(err error) int {
	var se *wecomtest.StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

// sendUntilGate sends m and waits until the model stream it starts is held at
// gate, so the test acts mid-turn.
func sendUntilGate(t *testing.T, ctx context.Context, sim *wecomtest.Sim, m wecomtest.Message, gate *scriptedmodel.Gate) *wecomtest.Stream {
	t.Helper()
	s, err := sim.Send(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("the model stream never reached the gate")
	}
	return s
}
