package codex

import (
	"context"
	"fmt"
	"os"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// maxSnapshots is how many of a thread's latest turns Undo can put the
// files of back, one after the other.
const maxSnapshots = 20

// turnSnapshot is the workspace tree from just before a turn.
type turnSnapshot struct{ turnID, tree string }

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
// Codex named the turn.
func (a *Agent) keepSnapshot(th *thread, ts *turnState) {
	ts.mu.Lock()
	id, tree := ts.id, ts.tree
	ts.mu.Unlock()
	if tree == "" || id == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	th.snapshots = append(th.snapshots, turnSnapshot{turnID: id, tree: tree})
	if len(th.snapshots) > maxSnapshots {
		th.snapshots = th.snapshots[len(th.snapshots)-maxSnapshots:]
	}
}

// takeSnapshot removes and returns the snapshot from before turnID.
func (a *Agent) takeSnapshot(th *thread, turnID string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(th.snapshots) - 1; i >= 0; i-- {
		if th.snapshots[i].turnID == turnID {
			tree := th.snapshots[i].tree
			th.snapshots = th.snapshots[:i]
			return tree, true
		}
	}
	return "", false
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
	tree, ok := a.takeSnapshot(th, u.TurnID)
	a.mu.Lock()
	cwd := th.cwd
	a.mu.Unlock()
	s, can := a.snapshotterFor(th.id, cwd)
	if !ok || !can {
		u.FilesKept = true
		return u, nil
	}
	var err error
	if u.Files, u.Removed, err = s.restore(ctx, tree); err != nil {
		return u, fmt.Errorf("put back the files of codex turn %s: %w", u.TurnID, err)
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
