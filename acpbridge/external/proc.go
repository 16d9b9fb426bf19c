package external

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/readpace"
	"github.com/wecodex/wecodex/childenv"
	"github.com/wecodex/wecodex/procgroup"
)

// agentProc is one run of the external agent's process and its ACP connection.
type agentProc struct {
	gen   uint64
	cmd   *exec.Cmd
	stdin io.WriteCloser
	conn  *acp.ClientSideConnection
	caps  acp.AgentCapabilities
	info  string // agentInfo name/version, for logs and errors

	exited  chan struct{} // closed once the process has exited
	waitErr error         // how it exited; read after <-exited
}

// startProc starts the agent process and initializes the ACP connection.
func (a *Agent) startProc(ctx context.Context, gen uint64) (*agentProc, error) {
	cmd := exec.Command(a.opts.Command[0], a.opts.Command[1:]...)
	cmd.Env = agentEnv(childenv.Inherit(a.log, a.opts.Command[0]), a.opts.Env)
	// Its own process group, so a kill also reaches what the agent spawned
	// (codex-acp runs `codex app-server` under it).
	procgroup.Set(cmd)

	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start agent %s: stdin: %w", a.opts.Command[0], err)
	}
	// Our own pipes rather than StdoutPipe/StderrPipe: Wait must neither close
	// a read end while the connection still reads what the agent wrote last,
	// nor wait for a grandchild that inherited stderr.
	stdoutR, stdoutW, err := readpace.Pipe("agent-stdout")
	if err != nil {
		return nil, fmt.Errorf("start agent %s: stdout: %w", a.opts.Command[0], err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return nil, fmt.Errorf("start agent %s: stderr: %w", a.opts.Command[0], err)
	}
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	err = cmd.Start()
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdoutR.Close()
		stderrR.Close()
		return nil, acpbridge.StartFailure(fmt.Errorf("start agent %s: %w", a.opts.Command[0], err))
	}

	p := &agentProc{gen: gen, cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	log := a.log.With("agent_pid", cmd.Process.Pid, "agent_gen", gen)
	go func() {
		// The agent's own diagnostics may quote user text: debug level only.
		sc := bufio.NewScanner(stderrR)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			log.Debug("agent stderr", "line", sc.Text())
		}
	}()
	client := &agentClient{a: a, gen: gen}
	out := newAgentReader(stdoutR, client, log)
	p.conn = acp.NewClientSideConnection(client, stdin, out)
	p.conn.SetLogger(log)
	go out.run(p.conn.Done())
	go func() {
		p.waitErr = cmd.Wait()
		// Whatever it left behind in its group goes with it.
		_ = procgroup.Kill(cmd)
		close(p.exited)
		log.Info("agent process exited", "status", exitStatus(p.waitErr))
		// The read ends are ours. Give the connection a moment to read what
		// the agent wrote last, then close them. stdout is a blocking pipe
		// (readpace.Pipe): should something outside the group still hold
		// its write end, the reader stays in its read until that closes;
		// the process is known dead by exited, so a restart does not wait.
		t := time.NewTimer(2 * time.Second)
		select {
		case <-p.conn.Done():
		case <-t.C:
		}
		t.Stop()
		stdoutR.Close()
		stderrR.Close()
	}()

	ictx, cancel := context.WithTimeout(ctx, a.opts.StartTimeout)
	defer cancel()
	resp, err := p.conn.Initialize(ictx, acp.InitializeRequest{
		ProtocolVersion: acp.ProtocolVersionNumber,
		ClientInfo:      &acp.Implementation{Name: acpbridge.ServedAgentName, Version: a.opts.ClientVersion},
		ClientCapabilities: acp.ClientCapabilities{
			Meta: a.opts.CapabilitiesMeta,
			Fs:   acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			// Terminal stays false: we do not run terminals for the agent.
		},
	})
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("initialize agent %s: %w", a.opts.Command[0], a.procError(p, err))
	}
	if resp.ProtocolVersion != acp.ProtocolVersionNumber {
		p.kill()
		return nil, fmt.Errorf("initialize agent %s: it speaks ACP protocol version %d, wecodex speaks %d", a.opts.Command[0], resp.ProtocolVersion, acp.ProtocolVersionNumber)
	}
	p.caps = resp.AgentCapabilities
	p.info = a.opts.Command[0]
	if resp.AgentInfo != nil {
		p.info = resp.AgentInfo.Name + " " + resp.AgentInfo.Version
	}
	client.info.Store(&p.info)
	log.Info("agent started", "agent", p.info, "load_session", p.caps.LoadSession)
	return p, nil
}

// newAgentReader reads an agent's stdout, the read end of a readpace.Pipe:
// paced, because agents write a line per model delta and a read per line
// cost the client ten times the CPU of the updates themselves.
func newAgentReader(stdout io.Reader, client updateSink, log *slog.Logger) *updateReader {
	return newUpdateReader(&readpace.Reader{R: stdout}, client, log)
}

// agentEnv is the agent's environment: base (the allow-listed part of ours,
// internal/childenv), then agent.acp.env (sorted, so the order is stable),
// then the defaults neither of them set.
func agentEnv(base []string, env map[string]string) []string {
	out := slices.Clone(base)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	for _, kv := range agentDefaultEnv {
		if _, set := env[kv[0]]; set || slices.ContainsFunc(base, func(e string) bool { return strings.HasPrefix(e, kv[0]+"=") }) {
			continue
		}
		out = append(out, kv[0]+"="+kv[1])
	}
	return out
}

// alive reports whether the process is still running.
func (p *agentProc) alive() bool {
	select {
	case <-p.exited:
		return false
	case <-p.conn.Done():
		return false
	default:
		return true
	}
}

// kill stops the process and everything in its group at once (a stopped
// process included), and waits until it is gone.
func (p *agentProc) kill() {
	_ = procgroup.Kill(p.cmd)
	_ = p.stdin.Close()
	<-p.exited
}

// stop asks the process to exit by closing its stdin, then, when it is still
// there after grace, sends its group SIGTERM, and SIGKILL after grace more.
// Some agents never exit on EOF (zed's codex-acp), so grace is short.
func (p *agentProc) stop(grace time.Duration) {
	_ = p.stdin.Close()
	if p.waitExit(grace) {
		return
	}
	_ = procgroup.Terminate(p.cmd)
	if p.waitExit(grace) {
		return
	}
	p.kill()
}

// waitExit reports whether the process exits within d.
func (p *agentProc) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stopGrace is how long Close lets an agent exit on EOF, then on SIGTERM.
const stopGrace = 500 * time.Millisecond

// procError turns an error from a call on p's connection into one that says
// what happened to the agent when the process is gone.
func (a *Agent) procError(p *agentProc, err error) error {
	select {
	case <-p.exited:
		return fmt.Errorf("%w: the agent process exited (%s)", ErrAgentExited, exitStatus(p.waitErr))
	default:
		return requestError(err)
	}
}

func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// requestError unwraps the agent's message from a JSON-RPC error: acp-go-sdk
// agents put it in data.error under the generic "Internal error".
func requestError(err error) error {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return err
	}
	if m, ok := re.Data.(map[string]any); ok {
		if s, ok := m["error"].(string); ok && s != "" {
			return fmt.Errorf("%s: %s", re.Message, s)
		}
		if s, ok := m["message"].(string); ok && s != "" {
			return fmt.Errorf("%s: %s", re.Message, s)
		}
	}
	if s, ok := re.Data.(string); ok && s != "" {
		return fmt.Errorf("%s: %s", re.Message, s)
	}
	return errors.New(re.Message)
}
