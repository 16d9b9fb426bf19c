package external

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// agentClient is the acp.Client one agent process talks to. It knows the
// process generation it serves, so a message from a process being replaced
// cannot reach a session that moved on.
type agentClient struct {
	a    *Agent
	gen  uint64
	info atomic.Pointer[string] // agentInfo "name version", once initialized

	gathered []pendingUpdate // the reader goroutine's own: see deliver
}

var _ acp.Client = (*agentClient)(nil)

// session finds the session the agent means by id, with its current turn.
func (c *agentClient) session(id acp.SessionId) (*extSession, *extTurn, acpbridge.Sink) {
	c.a.mu.Lock()
	defer c.a.mu.Unlock()
	s := c.a.byAgent[id]
	if s == nil || s.gen != c.gen {
		return nil, nil, nil
	}
	return s, s.turn, s.sink
}

// SessionUpdate implements acp.Client. The SDK never calls it for an agent
// process (updateReader takes every session/update first); it routes like
// the reader does, one update at a time.
func (c *agentClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if kind, ok := acpbridge.UpdateKind(n.Update); !ok {
		c.a.log.Debug("dropping unknown session update", "session", n.SessionId, "kind", kind)
		return nil
	}
	if p, ok := c.route(routeUpdate(n)); ok {
		p.turn.poke()
		p.s.queue.push(p.deliver)
	}
	return nil
}

// pendingUpdate is one routed update on its way to its session's sink.
type pendingUpdate struct {
	s      *extSession
	turn   *extTurn // nil outside a turn; poke is nil-safe
	sink   acpbridge.Sink
	update acp.SessionUpdate
	notice *acpbridge.Notice
}

func (p pendingUpdate) deliver() {
	if p.notice != nil {
		p.sink.Notice(*p.notice)
		return
	}
	p.sink.Update(p.update)
}

// route finds where in goes; false drops it (a session that moved on, or
// no sink, e.g. a replay while reattaching after a restart).
func (c *agentClient) route(in inboundUpdate) (pendingUpdate, bool) {
	s, turn, sink := c.session(in.session)
	if s == nil {
		return pendingUpdate{}, false
	}
	if in.unphased {
		c.a.noteUnphased(c.agentInfo())
	}
	if sink == nil {
		if turn != nil {
			turn.poke() // still a sign of life
		}
		return pendingUpdate{}, false
	}
	return pendingUpdate{s: s, turn: turn, sink: sink, update: in.update, notice: in.notice}, true
}

// deliver runs on the reader's goroutine: it only routes and gathers, never
// waits on the sink. What it gathered reaches the sessions' queues at the
// next flushDelivered.
func (c *agentClient) deliver(in inboundUpdate) {
	if p, ok := c.route(in); ok {
		c.gathered = append(c.gathered, p)
	}
}

// flushDelivered hands what deliver gathered to the sessions' queues, one
// queue item and one turn wake-up per session for the whole batch: per
// update, those wake-ups (the queue's goroutine and the turn's hang timer)
// cost more than decoding the update. The reader calls it before it passes
// anything on to the SDK (a response must come after the updates before it)
// and before a read that may wait.
func (c *agentClient) flushDelivered() {
	for i := 0; i < len(c.gathered); {
		j := i + 1
		for j < len(c.gathered) && c.gathered[j].s == c.gathered[i].s {
			j++
		}
		batch := slices.Clone(c.gathered[i:j])
		for k := range batch {
			if k == 0 || batch[k].turn != batch[k-1].turn {
				batch[k].turn.poke()
			}
		}
		batch[0].s.queue.push(func() {
			for _, p := range batch {
				p.deliver()
			}
		})
		i = j
	}
	clear(c.gathered)
	c.gathered = c.gathered[:0]
}

// agentInfo names the agent this client serves, from initialize's agentInfo.
func (c *agentClient) agentInfo() string {
	if p := c.info.Load(); p != nil {
		return *p
	}
	return c.a.opts.Command[0]
}

// RequestPermission asks the sink of the session's running turn, which
// decides (and says so on the turn), and answers "cancelled" once the turn
// is cancelled.
func (c *agentClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	s, turn, sink := c.session(req.SessionId)
	if s == nil || turn == nil || sink == nil {
		return acpbridge.Cancelled(), nil
	}
	// The sink knows the session by the id its caller holds, which after a
	// restart is not the one the new process gave it.
	req.SessionId = s.id
	a := c.a
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	if turn.cancelled {
		a.mu.Unlock()
		return acpbridge.Cancelled(), nil
	}
	key := turn.nextPerm
	turn.nextPerm++
	turn.perms[key] = cancel
	turn.waiting++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(turn.perms, key)
		turn.waiting--
		a.mu.Unlock()
		turn.poke()
	}()

	// The decision may wait on a person; the request must not outlive the
	// turn's cancellation, so it runs aside and is abandoned on cancel.
	decided := make(chan acp.RequestPermissionResponse, 1)
	go func() { decided <- acpbridge.Answered(sink.RequestPermission(pctx, req)) }()
	var resp acp.RequestPermissionResponse
	select {
	case resp = <-decided:
		if pctx.Err() != nil {
			resp = acpbridge.Cancelled()
		}
	case <-pctx.Done():
		resp = acpbridge.Cancelled()
	}
	return resp, nil
}

// ReadTextFile serves fs/read_text_file inside the session's workspace.
func (c *agentClient) ReadTextFile(_ context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	s, turn, _ := c.session(req.SessionId)
	if s == nil {
		return acp.ReadTextFileResponse{}, fsError(errors.New("unknown session " + string(req.SessionId)))
	}
	if turn != nil {
		turn.poke()
	}
	var line, limit int
	if req.Line != nil {
		line = *req.Line
	}
	if req.Limit != nil {
		limit = *req.Limit
	}
	text, err := s.ws.ReadTextFile(req.Path, line, limit)
	if err != nil {
		return acp.ReadTextFileResponse{}, fsError(err)
	}
	return acp.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile serves fs/write_text_file inside the session's workspace.
func (c *agentClient) WriteTextFile(_ context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	s, turn, _ := c.session(req.SessionId)
	if s == nil {
		return acp.WriteTextFileResponse{}, fsError(errors.New("unknown session " + string(req.SessionId)))
	}
	if turn != nil {
		turn.poke()
	}
	if err := s.ws.WriteTextFile(req.Path, req.Content); err != nil {
		return acp.WriteTextFileResponse{}, fsError(err)
	}
	return acp.WriteTextFileResponse{}, nil
}

// fsError puts the reason in the JSON-RPC message itself, where agents show
// it to the model and the user.
func fsError(err error) error {
	return &acp.RequestError{Code: -32602, Message: err.Error()}
}

// Terminals are not advertised; an agent that asks anyway is told so.

func (c *agentClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (c *agentClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (c *agentClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (c *agentClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (c *agentClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}
