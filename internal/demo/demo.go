package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/procgroup"
)

// Options say which binaries and config the demo runs.
type Options struct {
	// Wecodex is the wecodex binary to run `serve` with.
	Wecodex string
	// Codex is the codex binary; it becomes agent.codex.bin.
	Codex string
	// Config is the config file; "" means configs/wecodex.yaml (embedded
	// Redis, the playground on).
	Config string
	// Env is added to serve's environment after the demo's own entries, so a
	// WECODEX_* override here wins (a test sets server.addr and Redis).
	Env []string
	// Logs receives serve's log output as it comes; nil discards it.
	Logs io.Writer
	// Script answers Codex; nil means Script().
	Script scriptedmodel.Script
	// StartTimeout bounds the wait for the playground URL; default 60 s.
	StartTimeout time.Duration
}

// Demo is a running `wecodex serve` whose Codex talks to a scripted model.
type Demo struct {
	// URL is the playground's URL, as serve logged it.
	URL string
	// Model is the scripted model; its Requests show what Codex sent.
	Model *scriptedmodel.Server
	// Dir holds CODEX_HOME (codex-home/) and the conversations' workspaces
	// (workspaces/); Close removes it.
	Dir string

	cmd    *exec.Cmd
	exited chan struct{}
	err    error // serve's exit; read after exited is closed
}

// playgroundURL finds the URL in serve's log line, text or JSON format.
var playgroundURL = regexp.MustCompile(`(?:url=|"url":")(https?://[^\s"]+/playground)`)

// Start starts the scripted model on loopback, writes a CODEX_HOME pointing
// Codex at it, runs `wecodex serve` with that home, and returns once serve
// has logged the playground's URL. Close stops it all.
func Start(ctx context.Context, o Options) (*Demo, error) {
	if o.Config == "" {
		o.Config = "configs/wecodex.yaml"
	}
	if o.Script == nil {
		o.Script = Script()
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	for what, p := range map[string]string{"wecodex binary": o.Wecodex, "codex binary (run `make codex`)": o.Codex} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("demo: %s: %w", what, err)
		}
	}
	codexBin, err := filepath.Abs(o.Codex)
	if err != nil {
		return nil, fmt.Errorf("demo: codex path: %w", err)
	}
	dir, err := os.MkdirTemp("", "wecodex-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: temp dir: %w", err)
	}
	d := &Demo{Dir: dir, Model: scriptedmodel.New(o.Script), exited: make(chan struct{})}
	fail := func(err error) (*Demo, error) {
		_ = d.Model.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	base, err := d.Model.Start()
	if err != nil {
		return fail(fmt.Errorf("demo: %w", err))
	}
	home := filepath.Join(dir, "codex-home")
	if err := scriptedmodel.WriteCodexHome(home, base, scriptedmodel.HomeOptions{}); err != nil {
		return fail(fmt.Errorf("demo: %w", err))
	}

	d.cmd = exec.Command(o.Wecodex, "serve", "--config", o.Config)
	d.cmd.Env = append(os.Environ(), scriptedmodel.Env(home)...)
	d.cmd.Env = append(d.cmd.Env,
		"WECODEX_AGENT_KIND=codex",
		"WECODEX_AGENT_CODEX_BIN="+codexBin,
		"WECODEX_AGENT_WORKSPACE_ROOT="+filepath.Join(dir, "workspaces"),
		"WECODEX_PLAYGROUND_ENABLED=true",
		"WECODEX_LOG_FORMAT=text",
	)
	d.cmd.Env = append(d.cmd.Env, o.Env...)
	procgroup.Set(d.cmd)
	logs, err := d.cmd.StderrPipe()
	if err != nil {
		return fail(fmt.Errorf("demo: %w", err))
	}
	d.cmd.Stdout = o.Logs
	if err := d.cmd.Start(); err != nil {
		return fail(fmt.Errorf("demo: start %s serve: %w", o.Wecodex, err))
	}

	found := make(chan string, 1)
	var copied sync.WaitGroup
	copied.Add(1)
	go func() {
		defer copied.Done()
		// Reads serve's log to its end, so serve never blocks on a full pipe.
		sc := bufio.NewScanner(logs)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if o.Logs != nil {
				fmt.Fprintln(o.Logs, line)
			}
			if m := playgroundURL.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, logs)
	}()
	go func() {
		copied.Wait()
		d.err = d.cmd.Wait()
		close(d.exited)
	}()

	wait, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	select {
	case d.URL = <-found:
		return d, nil
	case <-d.exited:
		_ = d.Close()
		return nil, fmt.Errorf("demo: wecodex serve exited before serving the playground: %v (see its log)", d.err)
	case <-wait.Done():
		_ = d.Close()
		return nil, fmt.Errorf("demo: wecodex serve did not log the playground URL in %s: %w", o.StartTimeout, wait.Err())
	}
}

// Exited is closed when serve exits; Err then says how.
func (d *Demo) Exited() <-chan struct{} { return d.exited }

// Err is serve's exit error, once Exited is closed.
func (d *Demo) Err() error { return d.err }

// Close stops serve (SIGTERM, so it shuts down gracefully, then a kill of its
// whole process group after a grace period, which ends the Codex it started
// too), then the scripted model, and removes the demo's directory.
func (d *Demo) Close() error {
	var errs []error
	if d.cmd != nil && d.cmd.Process != nil {
		select {
		case <-d.exited:
		default:
			_ = d.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-d.exited:
			case <-time.After(20 * time.Second):
				errs = append(errs, errors.New("demo: wecodex serve did not stop within 20s of SIGTERM; killed"))
			}
		}
		// Whatever serve left behind in its group (a Codex that outlived
		// it) goes too.
		_ = procgroup.Kill(d.cmd)
		<-d.exited
	}
	if err := d.Model.Close(); err != nil {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(d.Dir); err != nil {
		errs = append(errs, fmt.Errorf("demo: remove %s: %w", d.Dir, err))
	}
	return errors.Join(errs...)
}
