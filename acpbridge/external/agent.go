package external

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// ErrAgentExited marks an error caused by the agent process exiting.
var ErrAgentExited = errors.New("the agent process exited")

// ErrAgentHung marks an error caused by the agent not answering for the hang
// timeout; the process was killed.
var ErrAgentHung = errors.New("the agent stopped answering")

// DefaultHangTimeout is how long a turn may go without a single message from
// the agent before the agent is considered hung.
const DefaultHangTimeout = 3 * time.Minute

// DefaultStartTimeout is how long an agent may take to answer initialize,
// session/new or session/load.
const DefaultStartTimeout = 2 * time.Minute

// DefaultCapabilitiesMeta is what wecodex declares in
// clientCapabilities._meta so that the agents it supports send a message's
// phase: codex-acp 2.x attaches _meta.jetbrains.air.phase to a chunk only for
// a client whose _meta.jetbrains.air is an object (its isAirClient). The
// object is left empty, so none of AIR's optional renderings (diff patches,
// raw input, plan deltas), which need a version and a capabilities list, are
// asked for. codex-acp 1.1.1–1.6.x sent _meta.codex.phase to every client.
func DefaultCapabilitiesMeta() map[string]any {
	return map[string]any{"jetbrains": map[string]any{"air": map[string]any{}}}
}

// agentDefaultEnv is set in the agent's environment unless agent.acp.env or
// wecodex's own environment sets it:
//   - declaring AIR also turns on codex-acp 2.x's prompt suggestions, one
//     extra model request after every turn for a composer wecodex does not
//     have;
//   - codex-acp 2.x starts every new or loaded session in its mode "agent"
//     ("Auto review": approvals_reviewer auto_review), which hands each
//     approval to a model reviewer, so agent.approval is never asked.
//     "workspace-write" is the same sandbox and approval policy (on-request)
//     with the user as reviewer: the request comes to the client.
var agentDefaultEnv = [][2]string{
	{"CODEX_ACP_PROMPT_SUGGESTIONS", "false"},
	{"INITIAL_AGENT_MODE", "workspace-write"},
}

// Options configures an Agent (agent.kind: acp).
type Options struct {
	// Command is the agent's argv (agent.acp.command). Required.
	Command []string
	// Env is added to the agent's environment (agent.acp.env), which is
	// otherwise only the allow-listed part of this process's
	// (internal/childenv).
	Env map[string]string
	// HangTimeout: a turn that receives no update and no response for this
	// long (while no permission request is waiting on us) kills the agent.
	// Zero means DefaultHangTimeout.
	HangTimeout time.Duration
	// CapabilitiesMeta is sent as clientCapabilities._meta, for agents that
	// change what they send by it. Nil means DefaultCapabilitiesMeta; an
	// empty map declares nothing.
	CapabilitiesMeta map[string]any
	// StartTimeout bounds initialize, session/new and session/load, which
	// may start Codex and its thread; an agent that does not answer in time
	// is killed. Zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// ClientVersion is announced as clientInfo.version.
	ClientVersion string
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// OnRestart, when set, is called each time the process is started again
	// after it died (for metrics); it must not block.
	OnRestart func()
	// FailInterrupted fails a turn the process's death or hang cut off,
	// with one line asking for the message again, instead of restarting
	// the agent, reloading the session and continuing the turn in one more
	// prompt (only an agent that can load sessions is continued).
	FailInterrupted bool
}

// Agent is an Agent backed by an ACP agent subprocess, such as
// `wecodex codex-acp` or `@agentclientprotocol/codex-acp`. It restarts the
// process when it exits or hangs. An agent that can load sessions reloads the
// session in the new process, and the turn in flight carries on there in one
// continuation prompt (unless Options.FailInterrupted); otherwise the turn
// ends with an error and the next prompt starts a new session (said in a
// Notice).
type Agent struct {
	opts Options
	log  *slog.Logger

	startMu sync.Mutex // serializes process (re)starts

	mu       sync.Mutex
	proc     *agentProc // nil before the first start and after Close
	gen      uint64
	closed   bool
	sessions map[acp.SessionId]*extSession // by the id the caller holds
	byAgent  map[acp.SessionId]*extSession // by the id in the current process

	unphasedLogged atomic.Bool
}

// extSession is one session as the caller knows it.
type extSession struct {
	id    acp.SessionId
	ws    *acpbridge.Workspace
	queue *orderedQueue // delivers to sinks in order, off the protocol reader

	// Guarded by Agent.mu.
	agentID acp.SessionId // the session's id in process gen
	gen     uint64
	sink    acpbridge.Sink // where the agent's updates go right now; nil drops them
	turn    *extTurn
	busy    bool // a Prompt or LoadSession owns the session
	// cancelEarly records a Cancel that came while Prompt was still
	// (re)attaching the session, before the turn existed.
	cancelEarly bool
}

// extTurn is the state of one running prompt.
type extTurn struct {
	activity chan struct{} // poked on every message about the session

	// Guarded by Agent.mu.
	cancelled bool
	waiting   int                        // permission requests waiting on our side
	perms     map[int]context.CancelFunc // pending permission requests
	nextPerm  int
}

func (t *extTurn) poke() {
	if t == nil {
		return
	}
	select {
	case t.activity <- struct{}{}:
	default:
	}
}

// New starts the agent process and initializes it, so a wrong
// command fails at startup rather than on the first message.
func New(ctx context.Context, opts Options) (*Agent, error) {
	if len(opts.Command) == 0 || opts.Command[0] == "" {
		return nil, errors.New("agent.acp.command is empty: give the agent's command line, e.g. [\"wecodex\", \"codex-acp\"]")
	}
	if opts.HangTimeout <= 0 {
		opts.HangTimeout = DefaultHangTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.CapabilitiesMeta == nil {
		opts.CapabilitiesMeta = DefaultCapabilitiesMeta()
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Agent{
		opts:     opts,
		log:      log.With("agent_cmd", opts.Command[0]),
		sessions: map[acp.SessionId]*extSession{},
		byAgent:  map[acp.SessionId]*extSession{},
	}
	if _, _, err := a.ensureProc(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// ensureProc returns the running process, starting a new one when there is
// none or it is gone; restarted reports that an earlier one existed.
func (a *Agent) ensureProc(ctx context.Context) (p *agentProc, restarted bool, err error) {
	a.startMu.Lock()
	defer a.startMu.Unlock()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, false, errors.New("the agent is closed")
	}
	if a.proc != nil && a.proc.alive() {
		p := a.proc
		a.mu.Unlock()
		return p, false, nil
	}
	old := a.proc
	a.gen++
	gen := a.gen
	a.mu.Unlock()

	if old != nil {
		old.kill() // reap what is left of it
		a.log.Warn("restarting agent", "agent_gen", gen)
		if a.opts.OnRestart != nil {
			a.opts.OnRestart()
		}
	}
	p, err = a.startProc(ctx, gen)
	if err != nil {
		return nil, false, err
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		p.stop(stopGrace)
		return nil, false, errors.New("the agent is closed")
	}
	a.proc = p
	a.mu.Unlock()
	return p, old != nil, nil
}

// noteUnphased says once in the log that the agent sends message text with no
// phase: the card then cannot tell its commentary from its answer, and by the
// phase rule all of it is answer.
func (a *Agent) noteUnphased(agent string) {
	if a.unphasedLogged.CompareAndSwap(false, true) {
		a.log.Warn("agent sends message text without a phase; its commentary will show in the answer",
			"agent", agent, "lacks", "_meta.codex.phase or _meta.jetbrains.air.phase on agent_message_chunk")
	}
}

// NewSession implements Agent. cwd must exist; the agent's file requests are
// confined to it.
func (a *Agent) NewSession(ctx context.Context, cwd string) (acp.SessionId, error) {
	ws, err := acpbridge.NewWorkspace(cwd)
	if err != nil {
		return "", fmt.Errorf("new session: %w", err)
	}
	p, _, err := a.ensureProc(ctx)
	if err != nil {
		return "", fmt.Errorf("new session: %w", err)
	}
	id, err := a.newAgentSession(ctx, p, ws.Dir())
	if err != nil {
		return "", err
	}
	s := &extSession{id: id, ws: ws, queue: newOrderedQueue()}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		s.queue.close()
		return "", errors.New("the agent is closed")
	}
	s.agentID, s.gen = id, p.gen
	a.sessions[id] = s
	a.byAgent[id] = s
	return id, nil
}

func (a *Agent) newAgentSession(ctx context.Context, p *agentProc, cwd string) (acp.SessionId, error) {
	cctx, cancel := context.WithTimeout(ctx, a.opts.StartTimeout)
	defer cancel()
	resp, err := p.conn.NewSession(cctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		return "", fmt.Errorf("new session in %s: %w", cwd, a.callError(p, cctx, err))
	}
	return resp.SessionId, nil
}

// LoadSession implements Agent: the agent replays the session's history into
// sink. It returns acpbridge.ErrLoadUnsupported when the agent cannot load sessions.
func (a *Agent) LoadSession(ctx context.Context, id acp.SessionId, cwd string, sink acpbridge.Sink) error {
	ws, err := acpbridge.NewWorkspace(cwd)
	if err != nil {
		return fmt.Errorf("load session %s: %w", id, err)
	}
	p, _, err := a.ensureProc(ctx)
	if err != nil {
		return fmt.Errorf("load session %s: %w", id, err)
	}
	if !p.caps.LoadSession {
		return fmt.Errorf("load session %s: %w", id, acpbridge.ErrLoadUnsupported)
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return errors.New("the agent is closed")
	}
	s := a.sessions[id]
	if s == nil {
		s = &extSession{id: id, queue: newOrderedQueue()}
		a.sessions[id] = s
	}
	if s.busy {
		a.mu.Unlock()
		return fmt.Errorf("load session %s: a turn is running in it", id)
	}
	s.busy = true
	s.ws = ws
	a.mu.Unlock()
	defer a.release(s)
	return a.loadInto(ctx, p, s, sink)
}

// loadInto loads s into process p under its caller-facing id, replaying its
// history into sink (nil drops it), and makes p's id for it current.
func (a *Agent) loadInto(ctx context.Context, p *agentProc, s *extSession, sink acpbridge.Sink) error {
	a.mu.Lock()
	if a.byAgent[s.agentID] == s {
		delete(a.byAgent, s.agentID)
	}
	s.agentID, s.gen, s.sink = s.id, p.gen, sink
	a.byAgent[s.id] = s
	a.mu.Unlock()

	cctx, cancel := context.WithTimeout(ctx, a.opts.StartTimeout)
	defer cancel()
	_, err := p.conn.LoadSession(cctx, acp.LoadSessionRequest{SessionId: s.id, Cwd: s.ws.Dir(), McpServers: []acp.McpServer{}})
	a.mu.Lock()
	s.sink = nil
	a.mu.Unlock()
	if err != nil {
		a.mu.Lock()
		s.gen = 0 // not live in p: the next prompt tries again
		a.mu.Unlock()
		return fmt.Errorf("load session %s: %w", s.id, a.callError(p, cctx, err))
	}
	// The replay reaches sink before LoadSession returns.
	return s.queue.flush(ctx)
}

// release ends a Prompt's or LoadSession's hold on s.
func (a *Agent) release(s *extSession) {
	a.mu.Lock()
	s.busy = false
	s.turn = nil
	s.sink = nil
	a.mu.Unlock()
}

// Prompt implements Agent.
func (a *Agent) Prompt(ctx context.Context, id acp.SessionId, prompt acpbridge.Prompt, sink acpbridge.Sink) (acp.StopReason, error) {
	a.mu.Lock()
	s := a.sessions[id]
	switch {
	case a.closed:
		a.mu.Unlock()
		return "", errors.New("the agent is closed")
	case s == nil:
		a.mu.Unlock()
		return "", fmt.Errorf("prompt: unknown session %s: start or load it first", id)
	case s.busy:
		a.mu.Unlock()
		return "", fmt.Errorf("prompt: a turn is already running in session %s", id)
	}
	s.busy = true
	s.cancelEarly = false
	a.mu.Unlock()
	defer a.release(s)

	p, err := a.attach(ctx, s, sink)
	if err != nil {
		return "", err
	}
	blocks, err := promptBlocks(prompt, p.caps.PromptCapabilities.Image)
	if err != nil {
		return "", fmt.Errorf("prompt: %w", err)
	}

	turn, agentID, ok := a.beginTurn(s, sink)
	if !ok {
		return acp.StopReasonCancelled, nil
	}

	reason, err := a.runTurn(ctx, p, s, turn, agentID, blocks)
	cancelled := a.endTurn(turn)
	// Whatever the agent sent before the turn ended reaches the sink first.
	if ferr := s.queue.flush(context.WithoutCancel(ctx)); ferr != nil && err == nil {
		err = ferr
	}
	if !a.continues(ctx, p, err, cancelled) {
		return reason, err
	}
	return a.continueTurn(ctx, s, sink, err)
}

// endTurn answers what still waits on a decision for turn (however it
// ended) and reports whether the turn was cancelled.
func (a *Agent) endTurn(turn *extTurn) (cancelled bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cancelled = turn.cancelled
	turn.cancelled = true
	for k, cancel := range turn.perms {
		cancel()
		delete(turn.perms, k)
	}
	return cancelled
}

// continues reports whether a turn that ended with err on p carries on in
// a new process: the process died or hung under it, the turn was not
// cancelled, and the agent can load the session back.
func (a *Agent) continues(ctx context.Context, p *agentProc, err error, cancelled bool) bool {
	fault := errors.Is(err, ErrAgentExited) || errors.Is(err, ErrAgentHung)
	return fault && !cancelled && ctx.Err() == nil && !a.opts.FailInterrupted && p.caps.LoadSession
}

// continueTurn carries on the turn of s that fault cut off: it restarts the
// agent, reloads the session and prompts it once with the continuation
// prompt, on the same sink, whose card gets one line saying so. A second
// fault fails the turn.
func (a *Agent) continueTurn(ctx context.Context, s *extSession, sink acpbridge.Sink, fault error) (acp.StopReason, error) {
	a.log.Warn("agent ended mid-turn; continuing the turn in a new process", "session", s.id, "err", fault)
	sink.Notice(acpbridge.ContinuedNotice(errors.Is(fault, ErrAgentHung)))
	a.mu.Lock()
	s.turn = nil // a Cancel during the reload is remembered (cancelEarly)
	a.mu.Unlock()
	p, err := a.attach(ctx, s, nil)
	if err != nil {
		return "", err
	}
	turn, agentID, ok := a.beginTurn(s, sink)
	if !ok {
		return acp.StopReasonCancelled, nil
	}
	reason, err := a.runTurn(ctx, p, s, turn, agentID, []acp.ContentBlock{acp.TextBlock(acpbridge.ContinuationPrompt)})
	a.endTurn(turn)
	if ferr := s.queue.flush(context.WithoutCancel(ctx)); ferr != nil && err == nil {
		err = ferr
	}
	if errors.Is(err, ErrAgentExited) || errors.Is(err, ErrAgentHung) {
		return "", fmt.Errorf("prompt: %w again while the interrupted work continued; send the message again", faultOf(err))
	}
	return reason, err
}

// attach makes sure s is live in the running process, restarting the process
// and reloading (or recreating) the session when needed; sink, when not nil,
// is told the session was reloaded.
func (a *Agent) attach(ctx context.Context, s *extSession, sink acpbridge.Sink) (*agentProc, error) {
	p, _, err := a.ensureProc(ctx)
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	a.mu.Lock()
	live := s.gen == p.gen
	a.mu.Unlock()
	if live {
		return p, nil
	}
	if p.caps.LoadSession {
		if err := a.loadInto(ctx, p, s, nil); err != nil {
			return nil, fmt.Errorf("prompt: the agent restarted and could not reload the session: %w", err)
		}
		if sink != nil {
			sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "The agent was restarted; this conversation's session was reloaded."})
		}
		return p, nil
	}
	newID, err := a.newAgentSession(ctx, p, s.ws.Dir())
	if err != nil {
		return nil, fmt.Errorf("prompt: the agent restarted and could not start a new session: %w", err)
	}
	a.mu.Lock()
	if a.byAgent[s.agentID] == s {
		delete(a.byAgent, s.agentID)
	}
	s.agentID, s.gen = newID, p.gen
	a.byAgent[newID] = s
	a.mu.Unlock()
	sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "The agent was restarted and cannot reload sessions; this message starts a new session without the earlier context."})
	return p, nil
}

type promptResult struct {
	resp acp.PromptResponse
	err  error
}

// runTurn sends the prompt and supervises it: it ends on the response, on
// the process exiting, or when the agent is silent for the hang timeout.
func (a *Agent) runTurn(ctx context.Context, p *agentProc, s *extSession, turn *extTurn, agentID acp.SessionId, blocks []acp.ContentBlock) (acp.StopReason, error) {
	pctx, abandon := context.WithCancel(ctx)
	defer abandon()
	done := make(chan promptResult, 1)
	go func() {
		resp, err := p.conn.Prompt(pctx, acp.PromptRequest{SessionId: agentID, Prompt: blocks})
		done <- promptResult{resp, err}
	}()

	hang := time.NewTimer(a.opts.HangTimeout)
	defer hang.Stop()
	for {
		select {
		case r := <-done:
			if r.err != nil {
				if ctx.Err() != nil {
					return "", fmt.Errorf("prompt: %w", ctx.Err())
				}
				return "", a.turnError(p, r.err)
			}
			return r.resp.StopReason, nil
		case <-p.exited:
			// The response may have been read just before the exit.
			select {
			case r := <-done:
				if r.err == nil {
					return r.resp.StopReason, nil
				}
			default:
			}
			return "", acpbridge.E(acpbridge.KindCrashed, fmt.Errorf("prompt: %w (%s) mid-turn; the next message restarts it", ErrAgentExited, exitStatus(p.waitErr)))
		case <-turn.activity:
			resetTimer(hang, a.opts.HangTimeout)
		case <-hang.C:
			a.mu.Lock()
			waiting := turn.waiting > 0
			a.mu.Unlock()
			if waiting {
				// The agent waits on us (a permission request), not the
				// other way round.
				hang.Reset(a.opts.HangTimeout)
				continue
			}
			a.log.Warn("agent hung; killing it", "session", s.id, "hang_timeout", a.opts.HangTimeout)
			p.kill()
			return "", acpbridge.E(acpbridge.KindHung, fmt.Errorf("prompt: %w: nothing for %s, so it was stopped; the next message restarts it", ErrAgentHung, a.opts.HangTimeout))
		}
	}
}

func resetTimer(t *time.Timer, d time.Duration) {
	t.Stop()
	t.Reset(d)
}

// turnError explains a failed prompt call.
func (a *Agent) turnError(p *agentProc, err error) error {
	select {
	case <-p.conn.Done():
	default:
		return fmt.Errorf("prompt: %w", requestError(err))
	}
	// The output closed; the exit status, when the process is dying, says
	// more than that.
	t := time.NewTimer(exitStatusWait)
	defer t.Stop()
	select {
	case <-p.exited:
		return acpbridge.E(acpbridge.KindCrashed, fmt.Errorf("prompt: %w (%s) mid-turn; the next message restarts it", ErrAgentExited, exitStatus(p.waitErr)))
	case <-t.C:
		return acpbridge.E(acpbridge.KindCrashed, fmt.Errorf("prompt: %w: it closed its output mid-turn; the next message restarts it", ErrAgentExited))
	}
}

// exitStatusWait is how long a failed call waits for the process's exit
// status after its output closed.
const exitStatusWait = 2 * time.Second

// callError explains a failed request other than a prompt; a request that
// timed out kills the agent, which is hung.
func (a *Agent) callError(p *agentProc, cctx context.Context, err error) error {
	if errors.Is(cctx.Err(), context.DeadlineExceeded) {
		a.log.Warn("agent did not answer; killing it", "start_timeout", a.opts.StartTimeout)
		p.kill()
		return fmt.Errorf("%w: no answer for %s, so it was stopped; the next message restarts it", ErrAgentHung, a.opts.StartTimeout)
	}
	return a.procError(p, err)
}

// Cancel implements Agent: it sends session/cancel and answers the turn's
// pending permission requests "cancelled", as ACP requires of a client.
func (a *Agent) Cancel(ctx context.Context, id acp.SessionId) error {
	a.mu.Lock()
	s := a.sessions[id]
	if s != nil && s.busy && s.turn == nil {
		s.cancelEarly = true
	}
	if s == nil || s.turn == nil {
		a.mu.Unlock()
		return nil
	}
	s.turn.cancelled = true
	for k, cancel := range s.turn.perms {
		cancel()
		delete(s.turn.perms, k)
	}
	agentID, p := s.agentID, a.proc
	a.mu.Unlock()
	if p == nil || !p.alive() {
		return nil
	}
	if err := p.conn.Cancel(ctx, acp.CancelNotification{SessionId: agentID}); err != nil {
		return fmt.Errorf("cancel session %s: %w", id, err)
	}
	return nil
}

// PID is the process id of the running agent, or 0 when none runs; for
// diagnostics.
func (a *Agent) PID() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.proc == nil || !a.proc.alive() {
		return 0
	}
	return a.proc.cmd.Process.Pid
}

// Close implements Agent: it stops the agent process (closing its stdin, then
// SIGTERM and SIGKILL to its process group, each after a short grace) and the
// sessions' queues.
func (a *Agent) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	p := a.proc
	a.proc = nil
	sessions := a.sessions
	a.mu.Unlock()

	// A start in progress finishes under startMu, sees closed and stops
	// its own process; holding startMu here waits for that.
	a.startMu.Lock()
	if p != nil {
		p.stop(stopGrace)
	}
	a.startMu.Unlock()
	for _, s := range sessions {
		s.queue.close()
	}
	for _, s := range sessions {
		<-s.queue.done
	}
	return nil
}

var _ acpbridge.Agent = (*Agent)(nil)

// faultOf is the sentinel (exited or hung) and kind of a process fault, for
// the error of a turn it cut off a second time.
func faultOf(err error) error {
	if errors.Is(err, ErrAgentHung) {
		return acpbridge.E(acpbridge.KindHung, ErrAgentHung)
	}
	return acpbridge.E(acpbridge.KindCrashed, ErrAgentExited)
}

// beginTurn makes s's running turn, streaming into sink, and returns it with
// the agent's id for the session. ok is false when a Cancel came before the
// turn could start: then nothing started, and the turn is cancelled.
func (a *Agent) beginTurn(s *extSession, sink acpbridge.Sink) (turn *extTurn, agentID acp.SessionId, ok bool) {
	turn = &extTurn{activity: make(chan struct{}, 1), perms: map[int]context.CancelFunc{}}
	a.mu.Lock()
	defer a.mu.Unlock()
	if s.cancelEarly {
		return nil, "", false
	}
	s.turn, s.sink = turn, sink
	return turn, s.agentID, true
}
