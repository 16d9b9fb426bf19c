package codextest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/procgroup"
)

// rawAppServer is the smallest possible `codex app-server` client: JSON lines
// over stdio, JSON-RPC without the "jsonrpc" field. Tests read every message
// in order, so they can assert exact sequences.
type rawAppServer struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan rpcMessage
	nextID int

	mu         sync.Mutex
	transcript []byte // every stdout line, as received
	stderr     strings.Builder
}

// rpcMessage is any app-server message: a response (ID, Result/Error), a
// notification (Method, Params) or a server→client request (all three).
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// guard bounds every wait so a broken protocol fails the test instead of
// hanging it; it is a fail-safe, not a speed assertion.
const guard = 2 * time.Minute

func startAppServer(t testing.TB, h *Harness) *rawAppServer {
	t.Helper()
	c := &rawAppServer{t: t, cmd: h.Command("app-server"), msgs: make(chan rpcMessage, 1024)}
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatalf("app-server stdin: %v", err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("app-server stdout: %v", err)
	}
	c.cmd.Stderr = &lockedWriter{mu: &c.mu, b: &c.stderr}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start codex app-server: %v", err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(c.msgs)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			c.mu.Lock()
			c.transcript = append(append(c.transcript, line...), '\n')
			c.mu.Unlock()
			var m rpcMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Errorf("app-server wrote a line that is not JSON: %q", line)
				continue
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		_ = c.stdin.Close()
		_ = procgroup.Kill(c.cmd)
		_ = c.cmd.Wait()
		<-readDone
		if t.Failed() {
			c.mu.Lock()
			t.Logf("app-server stderr:\n%s", c.stderr.String())
			c.mu.Unlock()
		}
	})
	return c
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (c *rawAppServer) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatalf("marshal: %v", err)
	}
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("write to app-server: %v", err)
	}
}

// request sends a request and returns its id.
func (c *rawAppServer) request(method string, params any) string {
	c.t.Helper()
	c.nextID++
	c.send(map[string]any{"id": c.nextID, "method": method, "params": params})
	return fmt.Sprint(c.nextID)
}

func (c *rawAppServer) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"method": method, "params": params})
}

// next returns the next message from the app-server.
func (c *rawAppServer) next() rpcMessage {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatalf("app-server closed its stdout; stderr:\n%s", c.stderrText())
		}
		return m
	case <-time.After(guard):
		c.t.Fatalf("no message from app-server within %v", guard)
		return rpcMessage{}
	}
}

// call sends a request and returns its result, collecting the messages that
// arrive before the response into *seen (when not nil).
func (c *rawAppServer) call(method string, params any, seen *[]rpcMessage) json.RawMessage {
	c.t.Helper()
	id := c.request(method, params)
	for {
		m := c.next()
		if m.Method == "" && string(m.ID) == id {
			if len(m.Error) > 0 {
				c.t.Fatalf("%s failed: %s", method, m.Error)
			}
			return m.Result
		}
		if seen != nil {
			*seen = append(*seen, m)
		}
	}
}

func (c *rawAppServer) stderrText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

func (c *rawAppServer) transcriptBytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.transcript...)
}

// initialize performs the handshake.
func (c *rawAppServer) initialize() {
	c.t.Helper()
	c.call("initialize", map[string]any{
		"clientInfo": map[string]any{"name": "wecodex-codextest", "version": "0.0.0"},
	}, nil)
	c.notify("initialized", nil)
}

// startThread starts a thread in cwd and returns its id.
func (c *rawAppServer) startThread(cwd, approvalPolicy, sandbox string) string {
	c.t.Helper()
	res := c.call("thread/start", map[string]any{
		"cwd": cwd, "approvalPolicy": approvalPolicy, "sandbox": sandbox,
	}, nil)
	var r struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Thread.ID == "" {
		c.t.Fatalf("thread/start result %s: %v", res, err)
	}
	return r.Thread.ID
}

// runTurn starts a turn and returns every message up to and including
// turn/completed. Approval requests are answered with decision.
func (c *rawAppServer) runTurn(threadID, text, decision string) []rpcMessage {
	c.t.Helper()
	var msgs []rpcMessage
	c.call("turn/start", map[string]any{
		"threadId": threadID,
		"input":    []map[string]any{{"type": "text", "text": text}},
	}, &msgs)
	for len(msgs) == 0 || msgs[len(msgs)-1].Method != "turn/completed" {
		m := c.next()
		msgs = append(msgs, m)
		if m.Method != "" && len(m.ID) > 0 { // a server→client request
			if decision == "" {
				c.t.Fatalf("unexpected server request %s: %s", m.Method, m.Params)
			}
			c.send(map[string]any{"id": m.ID, "result": map[string]any{"decision": decision}})
		}
	}
	return msgs
}
