package serve

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// sessionCapabilities advertises session/list when the agent can list.
func (s *server) sessionCapabilities() acp.SessionCapabilities {
	if _, ok := s.agent.(sessionLister); ok {
		return acp.SessionCapabilities{List: &acp.SessionListCapabilities{}}
	}
	return acp.SessionCapabilities{}
}

// startConfig gives a session this connection just started or loaded its
// config, keeping what the client chose if it loads a session again.
func (s *server) startConfig(ctx context.Context, id acp.SessionId) *sessionConfig {
	s.mu.Lock()
	c := s.configs[id]
	s.mu.Unlock()
	if c != nil {
		return c
	}
	c = s.newSessionConfig(ctx, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev := s.configs[id]; prev != nil {
		return prev
	}
	s.configs[id] = c
	return c
}

// withConfig runs f on the session's config under the server's lock; it
// reports false for a session this connection has not started or loaded.
func (s *server) withConfig(id acp.SessionId, f func(*sessionConfig)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.configs[id]
	if c == nil {
		return false
	}
	f(c)
	return true
}

// change applies set to the session's config and returns the options as
// they are after it; an error is the client's choice refused.
func (s *server) change(id acp.SessionId, set func(*sessionConfig) error) ([]acp.SessionConfigOption, error) {
	var opts []acp.SessionConfigOption
	var err error
	if !s.withConfig(id, func(c *sessionConfig) {
		if err = set(c); err == nil {
			opts = c.options()
		}
	}) {
		err = fmt.Errorf("session %s was not started or loaded on this connection", id)
	}
	if err != nil {
		return nil, err
	}
	s.log.Info("session config changed", "session", id)
	return opts, nil
}

// invalid is a refused choice as the protocol answers it.
func invalid(err error) error {
	return acp.NewInvalidParams(map[string]any{"error": err.Error()})
}

// announce tells the client the session's options changed by other means
// than session/set_config_option (which answers with them), before the
// response to what changed them.
func (s *server) announce(ctx context.Context, id acp.SessionId, opts []acp.SessionConfigOption) {
	q, err := s.queue(id)
	if err != nil {
		return
	}
	q.push(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{
		SessionUpdate: "config_option_update", ConfigOptions: opts,
	}})
	if err := q.flush(ctx); err != nil {
		s.log.Warn("send the session's options", "session", id, "err", err)
	}
}

func (s *server) SetSessionMode(ctx context.Context, req acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	opts, err := s.change(req.SessionId, func(c *sessionConfig) error { return c.setMode(string(req.ModeId)) })
	if err != nil {
		return acp.SetSessionModeResponse{}, invalid(err)
	}
	s.announce(ctx, req.SessionId, opts)
	return acp.SetSessionModeResponse{}, nil
}

func (s *server) SetSessionConfigOption(_ context.Context, req acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	v := req.ValueId
	if v == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "every config option here takes a value id, none a boolean"})
	}
	opts, err := s.change(v.SessionId, func(c *sessionConfig) error { return c.set(v.ConfigId, string(v.Value)) })
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, invalid(err)
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// UnstableSetSessionModel is session/set_model, the form clients used before
// config options.
func (s *server) UnstableSetSessionModel(ctx context.Context, req acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	opts, err := s.change(req.SessionId, func(c *sessionConfig) error { return c.setModel(string(req.ModelId)) })
	if err != nil {
		return acp.UnstableSetSessionModelResponse{}, invalid(err)
	}
	s.announce(ctx, req.SessionId, opts)
	return acp.UnstableSetSessionModelResponse{}, nil
}

func (s *server) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	defer s.begin()()
	l, ok := s.agent.(sessionLister)
	if !ok {
		return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
	}
	resp, err := l.ListSessions(ctx, req)
	if err != nil {
		return acp.ListSessionsResponse{}, fmt.Errorf("list sessions: %w", err)
	}
	return resp, nil
}
