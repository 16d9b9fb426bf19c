package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/readpace"
	"github.com/wecodex/wecodex/procgroup"
)

// ErrAppServerExited is wrapped by every error caused by the app-server
// process ending (crashed, killed, or restarted by the watchdog).
var ErrAppServerExited = errors.New("codex app-server exited")

// ErrAppServerHung is wrapped (beside ErrAppServerExited) by the error of
// calls and turns an app-server held when the watchdog killed it for not
// answering.
var ErrAppServerHung = errors.New("codex app-server stopped answering")

// exitError is why the app-server is gone, in one line a person can act on.
// Its stderr is logged, never part of the text: it holds log lines,
// timestamps and the server's CODEX_HOME path, none of which helps a user.
type exitError struct {
	status string // "signal: killed", "exit status 1"
	hung   bool   // the watchdog killed it
}

func (e *exitError) Error() string {
	if e.hung {
		return ErrAppServerHung.Error() + " and was restarted; send the message again"
	}
	return ErrAppServerExited.Error() + ": " + e.status + "; send the message again"
}

func (e *exitError) Is(target error) bool {
	return target == ErrAppServerExited || (e.hung && target == ErrAppServerHung)
}

// requestTimeout bounds every request whose context has no earlier
// deadline: a request an app-server never answers must not hold its caller
// for good, even when the watchdog is off.
const requestTimeout = 2 * time.Minute

// handler receives what the app-server sends that is not a response. Both
// methods run on the read loop: they must not block (the Sink contract), and
// params is only valid until they return.
type handler interface {
	handleNotification(c *conn, method, params []byte)
	handleRequest(c *conn, id json.RawMessage, method string, params []byte)
}

// conn is one running `codex app-server` and the JSON-lines JSON-RPC session
// over its stdio.
type conn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tailBuffer
	h      handler
	log    *slog.Logger

	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan callResult

	done    chan struct{} // closed once the process has exited and the loop ended
	exitErr error         // set before done is closed

	hung atomic.Bool // the watchdog killed the process for not answering
	// stopped: this side killed the process on purpose (Close, a failed
	// start); its "signal: killed" is then no news for an operator.
	stopped atomic.Bool
}

type callResult struct {
	result []byte
	err    error
}

// appServerArgs builds the command line: each config override becomes
// `-c key=value` with the value written as TOML.
func appServerArgs(config map[string]string) []string {
	args := []string{"app-server"}
	keys := make([]string, 0, len(config))
	for k := range config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+tomlValue(config[k]))
	}
	return args
}

// tomlValue leaves a value that already reads as a TOML scalar, array or
// inline table alone and quotes anything else as a TOML basic string, so
// `model=gpt-5` and `model="gpt-5"` mean the same.
func tomlValue(v string) string {
	t := strings.TrimSpace(v)
	switch {
	case t == "true" || t == "false":
		return t
	case t != "" && strings.ContainsAny(t[:1], "\"'[{"):
		return t
	}
	if _, err := strconv.ParseInt(t, 10, 64); err == nil {
		return t
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil && !strings.ContainsAny(t, "xXpP_") {
		return t
	}
	// JSON string escaping is valid TOML basic-string escaping.
	b, _ := json.Marshal(v)
	return string(b)
}

// startConn spawns the app-server with the whole environment env and
// performs the initialize handshake.
func startConn(ctx context.Context, bin string, config map[string]string, env []string, h handler, log *slog.Logger) (*conn, error) {
	cmd := exec.Command(bin, appServerArgs(config)...)
	cmd.Env = env
	procgroup.Set(cmd)
	// The npm launcher may leave its native child holding stderr; do not let
	// Wait hang on it once the launcher is gone.
	cmd.WaitDelay = time.Second
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	stdout, stdoutW, err := readpace.Pipe("codex-stdout")
	if err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	cmd.Stdout = stdoutW
	err = cmd.Start()
	stdoutW.Close() // the app-server has its own copy
	if err != nil {
		stdout.Close()
		return nil, acpbridge.StartFailure(fmt.Errorf("start codex app-server (%s): %w", bin, err))
	}
	c := &conn{
		cmd: cmd, stdin: stdin, stderr: stderr, h: h, log: log,
		pending: make(map[int64]chan callResult),
		done:    make(chan struct{}),
	}
	go c.readLoop(stdout)
	log.Info("codex app-server started", "pid", cmd.Process.Pid)

	var init json.RawMessage
	if err := c.call(ctx, "initialize", initializeParams{
		ClientInfo:   clientInfo{Name: "wecodex", Title: "wecodex", Version: "0"},
		Capabilities: initializeCapabilities{OptOutNotificationMethods: optOutNotifications},
	}, &init); err != nil {
		c.kill()
		return nil, fmt.Errorf("initialize codex app-server: %w", err)
	}
	if err := c.notify("initialized", nil); err != nil {
		c.kill()
		return nil, fmt.Errorf("initialize codex app-server: %w", err)
	}
	return c, nil
}

// readLoop owns stdout: it dispatches every line, then, at EOF, reaps the
// process and fails every pending call.
func (c *conn) readLoop(stdout io.ReadCloser) {
	r := lineReader{r: bufio.NewReaderSize(&readpace.Reader{R: stdout}, 64<<10)}
	for {
		line, err := r.next()
		if err != nil {
			break
		}
		c.dispatch(line)
	}
	stdout.Close()
	waitErr := c.cmd.Wait()
	status := "exit status 0"
	if waitErr != nil {
		status = waitErr.Error()
	}
	// The stderr tail explains the exit to an operator; tail() redacts
	// secrets. It stays out of the error, which reaches the user's card.
	if c.stopped.Load() && !c.hung.Load() {
		c.log.Info("codex app-server stopped", "status", status)
	} else {
		c.log.Warn("codex app-server exited", "status", status, "hung", c.hung.Load(), "stderr", c.stderr.tail())
	}

	c.mu.Lock()
	kind := acpbridge.KindCrashed
	if c.hung.Load() {
		kind = acpbridge.KindHung
	}
	c.exitErr = acpbridge.E(kind, &exitError{status: status, hung: c.hung.Load()})
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	// done closes before the pending calls learn of the exit: a caller that
	// retries at once (a turn the watchdog's kill cut off) must find this
	// connection gone and start a new one, not be handed this one again.
	close(c.done)
	for _, ch := range pending {
		ch <- callResult{err: c.exitErr} // buffered: never blocks
	}
}

func (c *conn) dispatch(line []byte) {
	var id, method, params, result, rpcErr []byte
	f := newFields(line)
	for {
		k, v, ok := f.next()
		if !ok {
			break
		}
		switch string(k) {
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		case "result":
			result = v
		case "error":
			rpcErr = v
		}
	}
	if f.err != nil {
		c.log.Warn("codex app-server sent a malformed line", "bytes", len(line))
		return
	}
	switch {
	case method != nil:
		m, _, _ := rawString(method)
		if id != nil {
			c.h.handleRequest(c, json.RawMessage(append([]byte(nil), id...)), string(m), params)
			return
		}
		c.h.handleNotification(c, m, params)
	case id != nil:
		n, ok := parseID(id)
		if !ok {
			c.log.Warn("codex app-server answered an id we never sent")
			return
		}
		c.mu.Lock()
		ch := c.pending[n]
		delete(c.pending, n)
		c.mu.Unlock()
		if ch == nil {
			return // the caller gave up
		}
		if rpcErr != nil {
			var e rpcError
			_ = json.Unmarshal(rpcErr, &e)
			ch <- callResult{err: fmt.Errorf("codex: %s (code %d)", e.Message, e.Code)}
			return
		}
		ch <- callResult{result: append([]byte(nil), result...)}
	}
}

// call sends a request and waits for its response, decoding the result into
// out (when not nil). It gives up after requestTimeout at the latest.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	ch := make(chan callResult, 1)
	c.mu.Lock()
	if c.pending == nil {
		err := c.exitErr
		c.mu.Unlock()
		return err
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.write(rpcRequest{ID: id, Method: method, Params: params}); err != nil {
		c.forget(id)
		if exited := c.exited(); exited != nil {
			return exited
		}
		return fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case res := <-ch:
		if res.err != nil {
			return fmt.Errorf("%s: %w", method, res.err)
		}
		if out != nil {
			if err := json.Unmarshal(res.result, out); err != nil {
				return fmt.Errorf("decode %s result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// pendingCalls reports how many requests wait for an answer.
func (c *conn) pendingCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *conn) notify(method string, params any) error {
	return c.write(rpcNotification{Method: method, Params: params})
}

func (c *conn) respond(id json.RawMessage, result any) error {
	return c.write(rpcResponse{ID: id, Result: result})
}

func (c *conn) respondError(id json.RawMessage, code int, msg string) error {
	return c.write(rpcErrorResponse{ID: id, Error: rpcError{Code: code, Message: msg}})
}

func (c *conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.stdin.Write(b)
	return err
}

// exited returns the exit error once the process is gone, else nil.
func (c *conn) exited() error {
	select {
	case <-c.done:
		return c.exitErr
	default:
		return nil
	}
}

// kill ends the process (with its whole process group: the npm launcher runs
// the native binary as a child) and waits for the read loop to finish.
func (c *conn) kill() {
	c.stopped.Store(true)
	_ = procgroup.Kill(c.cmd)
	_ = c.stdin.Close()
	<-c.done
}

// lineReader returns one line at a time, reusing its buffer: a line is valid
// until the next call.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func (l *lineReader) next() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	// Long line (a large history page or command output): gather it.
	l.buf = append(l.buf[:0], line...)
	for {
		line, err = l.r.ReadSlice('\n')
		l.buf = append(l.buf, line...)
		if err == nil {
			return l.buf, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}
