package codex

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// ListSessions answers ACP's session/list from Codex's thread/list: one page
// of threads, newest first, filtered by req.Cwd when set; each titled by its
// name, else the first line of its first prompt.
func (a *Agent) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	p := threadListParams{SourceKinds: sessionSources}
	if req.Cursor != nil {
		p.Cursor = *req.Cursor
	}
	if req.Cwd != nil {
		p.Cwd = *req.Cwd
	}
	r, err := c.listThreads(ctx, p)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	out := acp.ListSessionsResponse{Sessions: make([]acp.SessionInfo, 0, len(r.Data)), NextCursor: r.NextCursor}
	for _, t := range r.Data {
		title, _, _ := strings.Cut(cmp.Or(deref(t.Name), t.Preview), "\n")
		updated := time.Unix(t.UpdatedAt, 0).UTC().Format(time.RFC3339)
		info := acp.SessionInfo{SessionId: acp.SessionId(t.ID), Cwd: t.Cwd, UpdatedAt: &updated}
		if title != "" {
			info.Title = &title
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

type threadReadParams struct {
	ThreadID string `json:"threadId"`
}

type threadReadResponse struct {
	Thread struct {
		Model           string `json:"model"`
		ReasoningEffort string `json:"reasoningEffort"`
	} `json:"thread"`
}

// SessionModel is the model and reasoning effort the session's thread runs
// with (thread/read): Codex's configured ones until a turn chose others.
func (a *Agent) SessionModel(ctx context.Context, id acp.SessionId) (model, effort string, err error) {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return "", "", err
	}
	var r threadReadResponse
	if err := c.call(ctx, "thread/read", threadReadParams{ThreadID: string(id)}, &r); err != nil {
		return "", "", fmt.Errorf("codex thread/read %s: %w", id, err)
	}
	return r.Thread.Model, r.Thread.ReasoningEffort, nil
}
