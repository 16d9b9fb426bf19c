package codex

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// sessionListParams is thread/list as session/list asks it: one page, from
// a cursor, of the threads working in one directory.
type sessionListParams struct {
	Cursor      string   `json:"cursor,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	SourceKinds []string `json:"sourceKinds"`
}

type sessionListResponse struct {
	Data []struct {
		ID        string `json:"id"`
		Name      string `json:"name"` // null when unnamed
		Preview   string `json:"preview"`
		Cwd       string `json:"cwd"`
		UpdatedAt int64  `json:"updatedAt"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// sessionSources are the threads an editor may reopen: those a person
// started (the CLI, an IDE, an app-server client such as this one), never a
// sub-agent's. Codex's default leaves out app-server threads.
var sessionSources = []string{"cli", "vscode", "appServer"}

// ListSessions answers ACP's session/list from Codex's thread/list: one page
// of threads, newest first, filtered by req.Cwd when set; each titled by its
// name, else the first line of its first prompt.
func (a *Agent) ListSessions(ctx context.Context, req acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return acp.ListSessionsResponse{}, err
	}
	p := sessionListParams{SourceKinds: sessionSources}
	if req.Cursor != nil {
		p.Cursor = *req.Cursor
	}
	if req.Cwd != nil {
		p.Cwd = *req.Cwd
	}
	var r sessionListResponse
	if err := c.call(ctx, "thread/list", p, &r); err != nil {
		return acp.ListSessionsResponse{}, fmt.Errorf("codex thread/list: %w", err)
	}
	out := acp.ListSessionsResponse{Sessions: make([]acp.SessionInfo, 0, len(r.Data)), NextCursor: r.NextCursor}
	for _, t := range r.Data {
		title, _, _ := strings.Cut(cmp.Or(t.Name, t.Preview), "\n")
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
