package codex

import (
	"context"
	"fmt"
	"time"
)

// StoredThread is one thread Codex keeps in its CODEX_HOME, as thread/list
// reports it: what retention and purge decide on.
type StoredThread struct {
	ID string
	// Cwd is the directory the thread works in.
	Cwd string
	// Path is its rollout file ("" when Codex does not say).
	Path string
	// Updated is when it last changed.
	Updated time.Time
	// Active says a turn runs in it now.
	Active bool
	// Archived says it was archived (thread/archive).
	Archived bool
}

// threadSourceKinds are all of the schema's ThreadSourceKind values: the
// default is only interactive ones, and retention covers whatever the home
// holds.
var threadSourceKinds = []string{"cli", "vscode", "exec", "appServer", "subAgent", "subAgentReview", "subAgentCompact", "subAgentThreadSpawn", "subAgentOther", "unknown"}

// maxThreadPages bounds thread/list's paging against a server that never
// stops handing out cursors.
const maxThreadPages = 1000

// StoredThreads lists every thread in CODEX_HOME, archived or not, every
// page of them.
func (a *Agent) StoredThreads(ctx context.Context) ([]StoredThread, error) {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return nil, err
	}
	var out []StoredThread
	for _, archived := range []bool{false, true} {
		cursor := ""
		for range maxThreadPages {
			r, err := c.listThreads(ctx, threadListParams{Cursor: cursor, Archived: archived, SortKey: "updated_at", SourceKinds: threadSourceKinds})
			if err != nil {
				return nil, err
			}
			for _, t := range r.Data {
				out = append(out, StoredThread{
					ID: t.ID, Cwd: t.Cwd, Path: t.Path, Updated: time.Unix(t.UpdatedAt, 0),
					Active: t.Status.Type == "active", Archived: archived,
				})
			}
			if deref(r.NextCursor) == "" {
				break
			}
			cursor = *r.NextCursor
		}
	}
	return out, nil
}

type threadDeleteParams struct {
	ThreadID string `json:"threadId"`
}

// DeleteThread deletes a thread and its rollout from CODEX_HOME
// (thread/delete) and forgets it here, so a later Prompt naming it fails
// instead of resuming a thread that is gone.
func (a *Agent) DeleteThread(ctx context.Context, id string) error {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return err
	}
	if err := c.call(ctx, "thread/delete", threadDeleteParams{ThreadID: id}, nil); err != nil {
		return fmt.Errorf("codex thread/delete %s: %w", id, err)
	}
	if err := a.dropSnapshots(id); err != nil { // undo.go
		return err
	}
	a.mu.Lock()
	if th := a.threads[id]; th != nil {
		if th.idle != nil {
			th.idle.Stop()
		}
		delete(a.threads, id)
	}
	a.mu.Unlock()
	return nil
}
