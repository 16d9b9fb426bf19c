package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// Options configures ServeACP.
type Options struct {
	// Version is announced as agentInfo.version.
	Version string
	// Mode is the mode a session starts in, as the agent is configured
	// (acpbridge.DefaultMode when empty). It is sent with a turn only once
	// the client switched it.
	Mode acpbridge.Mode
}

// ServeACP serves agent as an ACP agent over in/out (newline-delimited JSON-RPC,
// protocol version 1) until the client disconnects or ctx ends. out carries
// nothing but ACP messages; diagnostics go to log. ServeACP does not close
// agent: the caller owns it.
//
// session/new, session/load, session/prompt and session/cancel map onto the
// Agent's methods. Updates the Agent produces become session/update
// notifications, written by one goroutine per session in the order produced,
// so a slow client never blocks the Agent's reader; a turn's response is sent
// only after all its updates. Updates that gather while the previous ones
// are written go out in one batch, adjacent text chunks of one kind and
// message sent as one chunk with their texts joined (see outbox). Notices
// travel as agent_thought_chunk marked with _meta {"wecodex": {"notice":
// "<level>"}} (see NoticeUpdate). The Sink a turn writes to is the client's
// side of the session: a permission request the Agent raises on it reaches
// the client as session/request_permission, after the updates before it.
func ServeACP(ctx context.Context, agent acpbridge.Agent, in io.Reader, out io.Writer, log *slog.Logger, opts Options) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Turns run on serveCtx, not on a request's context (see Prompt); it
	// ends when the client goes away, so a turn nobody can receive stops.
	serveCtx, stopTurns := context.WithCancel(ctx)
	defer stopTurns()
	w := &lockedWriter{w: out}
	s := &server{
		agent: agent, log: log, version: opts.Version, mode: cmp.Or(opts.Mode, acpbridge.DefaultMode),
		ctx: serveCtx, w: w,
		queues: map[acp.SessionId]*outbox{}, cwds: map[acp.SessionId]string{}, configs: map[acp.SessionId]*sessionConfig{},
	}
	conn := acp.NewAgentSideConnection(s, w, in)
	conn.SetLogger(log)
	s.conn = conn
	defer s.closeQueues()

	var err error
	select {
	case <-conn.Done():
		log.Info("acp client disconnected")
	case <-ctx.Done():
		err = ctx.Err()
	}
	stopTurns()
	// Let requests already being handled finish (a client may send a
	// request and close its end at once), but not forever.
	finished := make(chan struct{})
	go func() { s.waitIdle(); close(finished) }()
	t := time.NewTimer(serveDrainTimeout)
	defer t.Stop()
	select {
	case <-finished:
	case <-t.C:
		log.Warn("acp requests still running at shutdown", "waited", serveDrainTimeout)
	}
	return err
}

// serveDrainTimeout bounds how long ServeACP waits for requests in flight
// once the client is gone.
const serveDrainTimeout = 5 * time.Second

// server is the acp.Agent that ServeACP hands to the SDK.
type server struct {
	agent   acpbridge.Agent
	log     *slog.Logger
	version string
	mode    acpbridge.Mode  // a session's first
	ctx     context.Context // ServeACP's: outlives any single request
	conn    *acp.AgentSideConnection
	w       *lockedWriter // the client's stream, shared by conn and the outboxes

	mu      sync.Mutex
	queues  map[acp.SessionId]*outbox
	cwds    map[acp.SessionId]string // each session's workspace, for the pictures its prompts bring
	configs map[acp.SessionId]*sessionConfig
	// announced are the sessions whose commands went out (commands.go).
	announced map[acp.SessionId]bool
	closed    bool
	inflight  int           // requests being handled
	idle      chan struct{} // closed when inflight drops to 0 while waited on
}

// begin counts a request in; the returned func counts it out.
func (s *server) begin() func() {
	s.mu.Lock()
	s.inflight++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inflight--
		if s.inflight == 0 && s.idle != nil {
			close(s.idle)
			s.idle = nil
		}
		s.mu.Unlock()
	}
}

// waitIdle returns once no request is being handled.
func (s *server) waitIdle() {
	s.mu.Lock()
	if s.inflight == 0 {
		s.mu.Unlock()
		return
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	idle := s.idle
	s.mu.Unlock()
	<-idle
}

var _ acp.Agent = (*server)(nil)
var _ acp.AgentLoader = (*server)(nil)

func (s *server) Initialize(_ context.Context, req acp.InitializeRequest) (acp.InitializeResponse, error) {
	s.log.Info("acp client connected", "protocol_version", req.ProtocolVersion)
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: acpbridge.ServedAgentName, Version: s.version},
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession: true,
			// Pictures are saved in the session's workspace and passed on
			// (Codex: localImage input).
			PromptCapabilities:  acp.PromptCapabilities{Image: true},
			SessionCapabilities: s.sessionCapabilities(),
		},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func (s *server) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (s *server) NewSession(ctx context.Context, req acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	defer s.begin()()
	id, err := s.agent.NewSession(ctx, req.Cwd)
	if err != nil {
		return acp.NewSessionResponse{}, fmt.Errorf("new session in %s: %w", req.Cwd, err)
	}
	s.setCwd(id, req.Cwd)
	s.log.Info("session started", "session", id)
	c := s.startConfig(ctx, id)
	return acp.NewSessionResponse{SessionId: id, Modes: c.modeState(), Models: c.modelState(), ConfigOptions: c.options()}, nil
}

func (s *server) LoadSession(ctx context.Context, req acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	defer s.begin()()
	q, err := s.queue(req.SessionId)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	if err := s.agent.LoadSession(ctx, req.SessionId, req.Cwd, s.sink(q)); err != nil {
		return acp.LoadSessionResponse{}, fmt.Errorf("load session %s: %w", req.SessionId, err)
	}
	// The replay must reach the client before the response says it is done.
	if err := q.flush(ctx); err != nil {
		return acp.LoadSessionResponse{}, fmt.Errorf("load session %s: send history: %w", req.SessionId, err)
	}
	s.setCwd(req.SessionId, req.Cwd)
	s.log.Info("session loaded", "session", req.SessionId)
	c := s.startConfig(ctx, req.SessionId)
	return acp.LoadSessionResponse{Modes: c.modeState(), Models: c.modelState(), ConfigOptions: c.options()}, nil
}

func (s *server) Prompt(ctx context.Context, req acp.PromptRequest) (acp.PromptResponse, error) {
	defer s.begin()()
	q, err := s.queue(req.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	// The SDK cancels ctx on session/cancel (and on $/cancel_request) before
	// it calls Cancel. The turn runs on ServeACP's context instead, so the
	// Agent stops it the normal way and reports StopReasonCancelled; a
	// cancelled request context is only turned into a Cancel call.
	stop := context.AfterFunc(ctx, func() {
		if err := s.agent.Cancel(s.ctx, req.SessionId); err != nil {
			s.log.Warn("cancel turn", "session", req.SessionId, "err", err)
		}
	})
	defer stop()
	s.announceCommands(req.SessionId, q)
	if cmd, ok := s.parseCommand(req.Prompt); ok {
		return s.runCommand(ctx, req.SessionId, cmd, q)
	}
	p, err := prompt(req.Prompt, s.cwdOf(req.SessionId))
	if err != nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.withConfig(req.SessionId, func(c *sessionConfig) { c.apply(&p) })
	reason, err := s.agent.Prompt(s.ctx, req.SessionId, p, s.sink(q))
	if ferr := q.flush(s.ctx); ferr != nil && err == nil {
		err = fmt.Errorf("send turn updates: %w", ferr)
	}
	if err != nil {
		s.log.Warn("turn failed", "session", req.SessionId, "err", err)
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: reason}, nil
}

func (s *server) Cancel(ctx context.Context, n acp.CancelNotification) error {
	if err := s.agent.Cancel(ctx, n.SessionId); err != nil {
		return fmt.Errorf("cancel session %s: %w", n.SessionId, err)
	}
	return nil
}

func (s *server) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (s *server) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (s *server) setCwd(id acp.SessionId, cwd string) {
	s.mu.Lock()
	s.cwds[id] = cwd
	s.mu.Unlock()
}

func (s *server) cwdOf(id acp.SessionId) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwds[id]
}

// queue returns the session's outbox, creating it on first use.
func (s *server) queue(id acp.SessionId) (*outbox, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("acp connection is closing")
	}
	q := s.queues[id]
	if q == nil {
		q = newOutbox(id, s.w, s.log)
		s.queues[id] = q
	}
	return q, nil
}

func (s *server) closeQueues() {
	s.mu.Lock()
	s.closed = true
	qs := s.queues
	s.queues = nil
	s.mu.Unlock()
	for _, q := range qs {
		q.close()
	}
	for _, q := range qs {
		<-q.done
	}
}

// sink is the client side of one session's turns: what the Agent produces
// goes to the client, and what it asks the client decides.
func (s *server) sink(q *outbox) acpbridge.Sink {
	return clientSink{s: s, q: q}
}

type clientSink struct {
	s *server
	q *outbox
}

func (c clientSink) Update(u acp.SessionUpdate) { c.q.push(u) }

func (c clientSink) Notice(n acpbridge.Notice) { c.q.push(acpbridge.NoticeUpdate(n)) }

// RequestPermission asks the client as session/request_permission, after
// every update the session produced so far has been sent, so the client
// already knows the tool call it is asked about.
func (c clientSink) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	if err := c.q.flush(ctx); err != nil {
		return acpbridge.Cancelled()
	}
	resp, err := c.s.conn.RequestPermission(ctx, req)
	if err != nil {
		c.s.log.Warn("ask client for permission", "session", req.SessionId, "err", err)
		return acpbridge.Cancelled()
	}
	return acpbridge.Answered(resp)
}
