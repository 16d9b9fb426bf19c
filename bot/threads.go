package bot

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// ThreadStore keeps the agent sessions (Codex threads) each conversation
// used, for /sessions, /resume, /fork and /name (package store: Threads).
// A conversation reaches a session only through this list, by its place
// in it: no id a user types is ever taken.
type ThreadStore interface {
	// RecordThread records that conv used session id at at and, unless
	// record is nil, keeps record (the engine's JSON) as what is known of
	// it. Only the sessions used last are kept.
	RecordThread(ctx context.Context, conv, id string, record []byte, at time.Time) error
	// UsedThreads returns conv's sessions, most recently used first, with
	// what RecordThread kept of each (nil when nothing was) and its last
	// use.
	UsedThreads(ctx context.Context, conv string) (ids []string, records [][]byte, used []time.Time, err error)
}

// Threads is what /sessions, /fork and /name need of the agent beyond
// acpbridge.Agent: its own record of its sessions (*codex.Agent has it;
// Config.Threads). Without it /sessions lists what wecodex recorded,
// /resume still works (LoadSession), /name names a session for wecodex
// only, and /fork says the agent cannot.
type Threads interface {
	// ThreadInfo returns what the agent knows of the sessions ids, by id;
	// one it does not know is left out. It never reports any other.
	ThreadInfo(ctx context.Context, ids []string) (map[string]acpbridge.ThreadInfo, error)
	// ForkThread branches session id into a new one working in cwd,
	// leaving id as it was, and returns the new one.
	ForkThread(ctx context.Context, id acp.SessionId, cwd string) (acp.SessionId, error)
	// NameThread gives session id a title.
	NameThread(ctx context.Context, id acp.SessionId, name string) error
}

// threadRecord is what the engine records of a session (ThreadStore keeps
// its JSON).
type threadRecord struct {
	// First is the prompt that started it, on one short line.
	First string `json:"first,omitempty"`
	// Name is what /name gave it.
	Name string `json:"name,omitempty"`
	// Project is the project it works in, "" for none; Cwd its directory.
	Project string `json:"project,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// ForkOf is the session /fork branched it from.
	ForkOf string `json:"fork_of,omitempty"`
	// Created is when it started (unix ms).
	Created int64 `json:"created,omitempty"`
}

// firstWordsLen bounds a session's first words on its /sessions line.
const firstWordsLen = 60

// firstWords is text as one short line, its spaces folded.
func firstWords(text string) string {
	s := []rune(strings.Join(strings.Fields(text), " "))
	if len(s) <= firstWordsLen {
		return string(s)
	}
	return string(s[:firstWordsLen-1]) + "…"
}

// recordThread keeps what a session started now for q is, so /sessions
// can list it. A listing, not state a turn depends on: a failure is only
// logged.
func (r *turnRunner) recordThread(ctx context.Context, q queued, sid acp.SessionId, cwd string) {
	if r.threads == nil {
		return
	}
	rec := threadRecord{First: firstWords(q.Text), Cwd: cwd, Created: time.Now().UnixMilli()}
	if project, err := r.projectOf(ctx, q); err == nil {
		rec.Project = project
	}
	body, err := json.Marshal(rec)
	if err == nil {
		err = r.threads.RecordThread(ctx, q.Conversation, string(sid), body, time.Now())
	}
	if err != nil {
		r.log.Warn("record the conversation's new session", "conv", q.Conversation, "session", sid, "err", err)
	}
}

// useThread records that q's turn runs in its conversation's session sid
// now, which puts it first on /sessions.
func (r *turnRunner) useThread(ctx context.Context, q queued, sid acp.SessionId) {
	if r.threads == nil {
		return
	}
	if err := r.threads.RecordThread(ctx, q.Conversation, string(sid), nil, time.Now()); err != nil {
		r.log.Warn("record the session's last use", "conv", q.Conversation, "session", sid, "err", err)
	}
}
