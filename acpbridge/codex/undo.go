package codex

import (
	"context"
	"fmt"
	"os"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

type threadTurnsListParams struct {
	ThreadID      string `json:"threadId"`
	Limit         int    `json:"limit"`
	SortDirection string `json:"sortDirection"`
	ItemsView     string `json:"itemsView"`
}

type threadTurnsListResponse struct {
	Data []struct {
		ID    string       `json:"id"`
		Items []threadItem `json:"items"`
	} `json:"data"`
}

type threadRevertParams struct {
	ThreadID     string `json:"threadId"`
	BeforeTurnID string `json:"beforeTurnId"`
}

// snapshotBefore snapshots th's workspace before a prompt's turn (a review
// or a compaction changes no file: begin is set for them). A snapshot that
// fails costs the turn nothing: its undo then keeps the files.
func (a *Agent) snapshotBefore(ctx context.Context, th *thread, begin turnBegin) string {
	if begin != nil {
		return ""
	}
	a.mu.Lock()
	cwd := th.cwd
	a.mu.Unlock()
	s, ok := a.snapshotterFor(th.id, cwd)
	if !ok {
		return ""
	}
	tree, err := s.take(ctx)
	if err != nil {
		a.log.Warn("snapshot the workspace before a turn; /undo will keep its files", "thread", th.id, "err", err)
		return ""
	}
	return tree
}

// keepSnapshot records ts's snapshot as the workspace before it, once
// Codex named the turn: as a ref of the thread's snapshot directory, so
// any process that shares it (a restart, a replica on the same
// workspace_root) can undo the turn's files.
func (a *Agent) keepSnapshot(th *thread, ts *turnState) {
	ts.mu.Lock()
	id, tree := ts.id, ts.tree
	ts.mu.Unlock()
	if tree == "" || id == "" {
		return
	}
	a.mu.Lock()
	cwd := th.cwd
	a.mu.Unlock()
	s, ok := a.snapshotterFor(th.id, cwd)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, snapshotTimeout)
	defer cancel()
	if err := s.keep(ctx, id, tree); err != nil {
		a.log.Warn("record the workspace snapshot of a turn; /undo will keep its files", "thread", th.id, "turn", id, "err", err)
	}
}

// Undo reverts the session's last turn: thread/revert drops it from the
// history the model sees, and the files it changed are put back from the
// snapshot taken before it, when this process took one. It waits for a
// running turn of the session to end first.
func (a *Agent) Undo(ctx context.Context, id acp.SessionId) (acpbridge.Undone, error) {
	th := a.threadFor(string(id))
	if err := th.acquire(ctx); err != nil {
		return acpbridge.Undone{}, err
	}
	defer a.release(th)
	c, err := a.load(ctx, th, "")
	if err != nil {
		return acpbridge.Undone{}, err
	}
	var turns threadTurnsListResponse
	if err := c.call(ctx, "thread/turns/list", threadTurnsListParams{
		ThreadID: th.id, Limit: 1, SortDirection: "desc", ItemsView: "full",
	}, &turns); err != nil {
		return acpbridge.Undone{}, fmt.Errorf("list codex turns of %s: %w", th.id, err)
	}
	if len(turns.Data) == 0 {
		return acpbridge.Undone{}, acpbridge.ErrNothingToUndo
	}
	last := turns.Data[0]
	if err := c.call(ctx, "thread/revert", threadRevertParams{ThreadID: th.id, BeforeTurnID: last.ID}, nil); err != nil {
		return acpbridge.Undone{}, fmt.Errorf("revert codex turn %s of %s: %w", last.ID, th.id, err)
	}
	u := acpbridge.Undone{TurnID: last.ID, Prompt: promptOf(last.Items)}
	a.log.Info("codex turn reverted", "thread", th.id, "turn", last.ID)
	return a.restoreFiles(ctx, th, u)
}

// restoreFiles puts back the files of the undone turn u, when a snapshot
// from before it is here.
func (a *Agent) restoreFiles(ctx context.Context, th *thread, u acpbridge.Undone) (acpbridge.Undone, error) {
	a.mu.Lock()
	cwd := th.cwd
	a.mu.Unlock()
	s, can := a.snapshotterFor(th.id, cwd)
	if !can {
		u.FilesKept = true
		return u, nil
	}
	tree, ok, err := s.find(ctx, u.TurnID)
	if err != nil || !ok {
		if err != nil {
			a.log.Warn("find the workspace snapshot of an undone turn; its files are kept", "thread", th.id, "turn", u.TurnID, "err", err)
		}
		u.FilesKept = true
		return u, nil
	}
	if u.Files, u.Removed, err = s.restore(ctx, tree); err != nil {
		return u, fmt.Errorf("put back the files of codex turn %s: %w", u.TurnID, err)
	}
	if err := s.forget(ctx, u.TurnID); err != nil {
		a.log.Warn("forget the snapshot of an undone turn", "thread", th.id, "turn", u.TurnID, "err", err)
	}
	return u, nil
}

// dropSnapshots removes a deleted thread's snapshots: they hold copies of
// its workspace's files, which must go with it.
func (a *Agent) dropSnapshots(threadID string) error {
	s, ok := a.snapshotterFor(threadID, "-")
	if !ok {
		return nil
	}
	if err := os.RemoveAll(s.gitDir); err != nil {
		return fmt.Errorf("remove the workspace snapshots of codex thread %s: %w", threadID, err)
	}
	return nil
}

// promptOf is the text of a turn's first user message.
func promptOf(items []threadItem) string {
	for _, it := range items {
		if it.Type != "userMessage" {
			continue
		}
		for _, c := range it.Content {
			if c.Type == "text" && c.Text != "" {
				return c.Text
			}
		}
	}
	return ""
}
