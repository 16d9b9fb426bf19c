package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wecodex/wecodex/childenv"
)

// The yardstick: the same native `codex app-server` the wecodex bridge runs,
// driven by the least a client can do (initialize, thread/start, turn/start,
// read until turn/completed, keep the answer's deltas). What the wecodex
// tree costs above this tree is what wecodex adds.

// bareAppServer is one app-server process and the client's end of its pipes.
type bareAppServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	nextID int
}

// nativeCodex finds the native binary behind the npm launcher bin, where
// the launcher would (the platform package beside it), so the bare
// app-server is the very binary the wecodex bridge runs; the package root
// is what the launcher tells it in its environment.
func nativeCodex(bin string) (native, packageRoot string, err error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", "", err
	}
	if filepath.Base(real) != "codex.js" {
		return real, "", nil // a native binary already
	}
	root := filepath.Dir(filepath.Dir(real))
	found, _ := filepath.Glob(filepath.Join(filepath.Dir(root), "codex-linux-*", "vendor", "*", "bin", "codex"))
	own, _ := filepath.Glob(filepath.Join(root, "vendor", "*", "bin", "codex"))
	if found = append(found, own...); len(found) == 0 {
		return "", "", fmt.Errorf("no native codex binary beside the launcher %s", real)
	}
	return found[0], root, nil
}

// startBare starts the app-server with args after "app-server" (-c
// settings), the environment every bridge gets (the allow-listed part of
// ours and env) and the launcher's markers, and initializes it.
func startBare(ctx context.Context, codex string, args []string, env map[string]string) (*bareAppServer, error) {
	bin, root, err := nativeCodex(codex)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"app-server"}, args...)...)
	cmd.Env = childenv.Inherit(nil, "codex app-server")
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	if root != "" {
		cmd.Env = append(cmd.Env, "CODEX_MANAGED_PACKAGE_ROOT="+root, "CODEX_MANAGED_BY_NPM=1")
	}
	if os.Getenv("BENCHBRIDGE_DEBUG") != "" {
		cmd.Stderr = os.Stderr
	}
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &bareAppServer{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10)}
	if _, err := s.call(ctx, "initialize", map[string]any{"clientInfo": map[string]string{"name": "benchbridge-bare", "version": "0"}}, nil); err != nil {
		s.close()
		return nil, err
	}
	if err := s.send(map[string]any{"method": "initialized"}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// line is one JSON-RPC message of the app-server (it leaves out "jsonrpc").
type line struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (s *bareAppServer) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.stdin.Write(append(b, '\n'))
	return err
}

// call sends a request and reads until its answer, handing every
// notification read meanwhile to onNote.
func (s *bareAppServer) call(ctx context.Context, method string, params any, onNote func(line) (done bool, err error)) (json.RawMessage, error) {
	s.nextID++
	id := int64(s.nextID)
	if err := s.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		l, err := s.read(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		switch {
		case l.ID != nil && l.Method != "":
			return nil, fmt.Errorf("%s: the app-server asked %s, which this client does not answer", method, l.Method)
		case l.ID != nil && *l.ID == id:
			if l.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, l.Error.Message)
			}
			return l.Result, nil
		case onNote != nil:
			if _, err := onNote(l); err != nil {
				return nil, err
			}
		}
	}
}

func (s *bareAppServer) read(ctx context.Context) (line, error) {
	if err := ctx.Err(); err != nil {
		return line{}, err
	}
	b, err := s.stdout.ReadBytes('\n')
	if err != nil {
		return line{}, fmt.Errorf("read the app-server: %w", err)
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return line{}, fmt.Errorf("read the app-server: %w", err)
	}
	return l, nil
}

// turn starts a thread in workspace, runs one turn of prompt on it and
// returns the answer: every item/agentMessage/delta until turn/completed.
func (s *bareAppServer) turn(ctx context.Context, workspace, prompt string) (string, error) {
	return s.turnWith(ctx, plainThread(workspace), prompt)
}

// plainThread is the plain bare row's thread/start: Codex's own
// workspace-write sandbox, which reads everything directly.
func plainThread(workspace string) map[string]any {
	return map[string]any{"cwd": workspace, "approvalPolicy": "never", "sandbox": "workspace-write"}
}

// turnWith is turn with thread/start's params given whole.
func (s *bareAppServer) turnWith(ctx context.Context, threadStart map[string]any, prompt string) (string, error) {
	res, err := s.call(ctx, "thread/start", threadStart, nil)
	if err != nil {
		return "", err
	}
	var th struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &th); err != nil || th.Thread.ID == "" {
		return "", fmt.Errorf("thread/start answered %s", res)
	}
	var answer strings.Builder
	done := false
	onNote := func(l line) (bool, error) {
		switch l.Method {
		case "item/agentMessage/delta":
			var d struct {
				Delta string `json:"delta"`
			}
			if err := json.Unmarshal(l.Params, &d); err != nil {
				return false, err
			}
			answer.WriteString(d.Delta)
		case "turn/completed":
			var c struct {
				Turn struct {
					Status string `json:"status"`
				} `json:"turn"`
			}
			if err := json.Unmarshal(l.Params, &c); err != nil {
				return false, err
			}
			if c.Turn.Status != "completed" {
				return false, fmt.Errorf("turn ended %q", c.Turn.Status)
			}
			done = true
		}
		return done, nil
	}
	if _, err := s.call(ctx, "turn/start", map[string]any{
		"threadId": th.Thread.ID, "input": []map[string]string{{"type": "text", "text": prompt}},
	}, onNote); err != nil {
		return "", err
	}
	for !done {
		l, err := s.read(ctx)
		if err != nil {
			return "", err
		}
		if _, err := onNote(l); err != nil {
			return "", err
		}
	}
	return answer.String(), nil
}

func (s *bareAppServer) pid() int { return s.cmd.Process.Pid }

// close ends the app-server as the bridges' Close ends theirs: stdin closed,
// then killed if it has not gone within a second.
func (s *bareAppServer) close() {
	_ = s.stdin.Close()
	exited := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(time.Second):
		_ = s.cmd.Process.Kill()
		<-exited
	}
}

// configArgs is -bare-config as app-server arguments: -c before each
// space-separated key=value.
func configArgs(config string) []string {
	var args []string
	for _, kv := range strings.Fields(config) {
		args = append(args, "-c", kv)
	}
	return args
}
