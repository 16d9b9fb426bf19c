package bot

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// session returns the agent session the conversation's next turn runs in,
// creating its workspace and a session when needed. note is a line for the
// card when the earlier session could not be continued.
// Where projects are configured, a session recorded in another directory
// (the conversation's project changed) is not continued: the next one
// starts fresh in the new one. Without projects a conversation always works
// in its own workspace, whose path differs between replicas only by their
// workspace_root; there the agent is asked to resume, as before, and says
// whether it can.
func (r *turnRunner) session(ctx context.Context, q queued, takeover bool) (id acp.SessionId, cwd, note string, err error) {
	conv := q.Conversation
	cwd, err = r.workingDir(ctx, q)
	if err != nil {
		return "", "", "", &stepError{stepStartSession, err}
	}
	recorded, recordedCwd, err := r.store.Conversation(ctx, conv)
	if err != nil {
		return "", "", "", &stepError{stepStartSession, fmt.Errorf("read session of %s: %w", conv, err)}
	}
	if q.Project != "" && recordedCwd != cwd {
		// A schedule's or trigger's own project: its turn runs in a
		// session of its own there, and the conversation keeps the one
		// its messages continue.
		return r.newSession(ctx, q, cwd, false)
	}
	if r.cfg.Projects != nil && recorded != "" && recordedCwd != "" && recordedCwd != cwd {
		r.log.Info("conversation works in another directory now; starting a fresh session", "conv", conv, "session", recorded)
		recorded = ""
	}
	if recorded != "" {
		sid := acp.SessionId(recorded)
		if r.knows(sid) {
			r.useThread(ctx, q, sid)
			return sid, cwd, "", nil
		}
		// Another process made it (an earlier run of this one, or a replica
		// that is gone): the agent may still find the thread, for instance
		// when CODEX_HOME is shared. Its replayed history is not news to the
		// user, so it goes nowhere.
		lerr := r.agent.LoadSession(ctx, sid, cwd, discard{})
		if lerr == nil {
			r.remember(sid)
			r.useThread(ctx, q, sid)
			return sid, cwd, "", nil
		}
		if ctx.Err() != nil {
			return "", "", "", &stepError{stepResume, fmt.Errorf("resume session %s: %w", sid, lerr)}
		}
		r.log.Info("earlier session cannot be resumed here; starting a fresh one", "conv", conv, "session", sid, "err", lerr)
		switch {
		case takeover:
			note = "This conversation moved to another server, which cannot resume the earlier session: this turn starts a fresh session (earlier context is not available)."
		default:
			note = "The earlier session could not be resumed: this turn starts a fresh session (earlier context is not available)."
		}
	}
	id, cwd, _, err = r.newSession(ctx, q, cwd, true)
	return id, cwd, note, err
}

// newSession starts a session for q in cwd, recorded as its
// conversation's when record.
func (r *turnRunner) newSession(ctx context.Context, q queued, cwd string, record bool) (acp.SessionId, string, string, error) {
	sid, err := r.startSession(ctx, cwd, q.Mode)
	if err != nil {
		return "", "", "", &stepError{stepStartSession, fmt.Errorf("start a session in %s: %w", cwd, err)}
	}
	r.remember(sid)
	if !record {
		return sid, cwd, "", nil
	}
	if err := r.store.SaveConversation(ctx, q.Conversation, string(sid), cwd); err != nil {
		return "", "", "", &stepError{stepStartSession, fmt.Errorf("record session of %s: %w", q.Conversation, err)}
	}
	r.recordThread(ctx, q, sid, cwd) // threads.go
	return sid, cwd, "", nil
}

// startSession starts a session in cwd, in mode where the agent can.
func (r *turnRunner) startSession(ctx context.Context, cwd string, mode acpbridge.Mode) (acp.SessionId, error) {
	if ms, ok := r.agent.(acpbridge.ModeStarter); ok {
		return ms.NewSessionIn(ctx, cwd, mode)
	}
	return r.agent.NewSession(ctx, cwd)
}

func (r *turnRunner) knows(id acp.SessionId) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.sessions[id]
	return ok
}

func (r *turnRunner) remember(id acp.SessionId) {
	r.mu.Lock()
	r.sessions[id] = struct{}{}
	r.mu.Unlock()
}

// discard is the sink for replayed history.
type discard struct{}

func (discard) Update(acp.SessionUpdate) {}
func (discard) Notice(acpbridge.Notice)  {}
func (discard) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}
