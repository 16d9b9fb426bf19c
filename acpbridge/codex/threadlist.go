package codex

import (
	"context"
	"fmt"
)

// threadListParams is Codex's thread/list request, as much of it as
// wecodex asks: the conversation's sessions by id (threads.go), an editor's
// session/list (sessionlist.go), and every stored thread for retention
// (storedthreads.go).
type threadListParams struct {
	Cursor string `json:"cursor,omitempty"`
	Cwd    string `json:"cwd,omitempty"`
	// IncludedThreadIDs restricts the answer to these threads. omitzero,
	// not omitempty: an empty list matches nothing, an omitted one all.
	IncludedThreadIDs []string `json:"includedThreadIds,omitzero"`
	Limit             int      `json:"limit,omitempty"`
	// Archived lists the archived threads instead of the others.
	Archived bool   `json:"archived"`
	SortKey  string `json:"sortKey,omitempty"`
	// SourceKinds is always sent: Codex's default leaves out the
	// app-server's own threads, wecodex's among them.
	SourceKinds []string `json:"sourceKinds"`
}

type threadListResponse struct {
	Data       []listedThread `json:"data"`
	NextCursor *string        `json:"nextCursor"`
}

// listedThread is one thread as thread/list describes it.
type listedThread struct {
	ID        string  `json:"id"`
	Name      *string `json:"name"` // null when unnamed
	Preview   string  `json:"preview"`
	Cwd       string  `json:"cwd"`
	Path      string  `json:"path"`
	UpdatedAt int64   `json:"updatedAt"`
	Status    struct {
		Type string `json:"type"`
	} `json:"status"`
}

// sessionSources are the threads an editor may reopen: those a person
// started (the CLI, an IDE, an app-server client such as this one), never a
// sub-agent's.
var sessionSources = []string{"cli", "vscode", "appServer"}

// listThreads asks Codex for one page of threads.
func (c *conn) listThreads(ctx context.Context, p threadListParams) (threadListResponse, error) {
	var r threadListResponse
	if err := c.call(ctx, "thread/list", p, &r); err != nil {
		return r, fmt.Errorf("codex thread/list: %w", err)
	}
	return r, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
