package codex

import (
	"context"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// Session controls beyond a prompt (issue 26): a review, a compaction and
// steering the running turn. A review and a compaction are turns of their
// own on the thread, started by another request than turn/start, so they
// run, stream, recover and stop exactly as a prompt's turn does.

// turnBegin names the request that starts a turn and its params, for the
// thread it runs on.
type turnBegin func(threadID string) (method string, params any)

// ErrNoRunningTurn is Steer's error when the session runs no turn Codex
// could add to.
var ErrNoRunningTurn = errors.New("no turn is running")

type reviewStartParams struct {
	ThreadID string       `json:"threadId"`
	Target   reviewTarget `json:"target"`
	Delivery string       `json:"delivery,omitempty"`
}

// reviewTarget is ReviewTarget: uncommittedChanges, or custom with the
// instructions to review by.
type reviewTarget struct {
	Type         string `json:"type"`
	Instructions string `json:"instructions,omitempty"`
}

type threadCompactStartParams struct {
	ThreadID string `json:"threadId"`
}

type turnSteerParams struct {
	ThreadID       string      `json:"threadId"`
	ExpectedTurnID string      `json:"expectedTurnId"`
	Input          []userInput `json:"input"`
}

// Review runs Codex's own code review on the session's thread, inline, as
// one turn streamed into sink: of the working tree's uncommitted changes,
// or, when instructions is not empty, of what they ask for. The review's
// text is the answer.
func (a *Agent) Review(ctx context.Context, id acp.SessionId, instructions string, sink acpbridge.Sink) (acp.StopReason, error) {
	target := reviewTarget{Type: "uncommittedChanges"}
	if instructions != "" {
		target = reviewTarget{Type: "custom", Instructions: instructions}
	}
	return a.drive(ctx, id, acpbridge.Prompt{}, sink, func(threadID string) (string, any) {
		return "review/start", reviewStartParams{ThreadID: threadID, Target: target, Delivery: "inline"}
	})
}

// Compact compacts the session's thread: Codex replaces its history with a
// summary, in a turn of its own whose "context compacted" notice reaches
// sink (never as answer).
func (a *Agent) Compact(ctx context.Context, id acp.SessionId, sink acpbridge.Sink) (acp.StopReason, error) {
	return a.drive(ctx, id, acpbridge.Prompt{}, sink, func(threadID string) (string, any) {
		return "thread/compact/start", threadCompactStartParams{ThreadID: threadID}
	})
}

// Steer adds text to the session's running turn (turn/steer): the model
// reads it within that turn, and no turn starts for it. It returns
// ErrNoRunningTurn when nothing runs; a turn about to start is waited
// for.
func (a *Agent) Steer(ctx context.Context, id acp.SessionId, text string) error {
	a.mu.Lock()
	th, c := a.threads[string(id)], a.conn
	a.mu.Unlock()
	if th == nil || c == nil {
		return ErrNoRunningTurn
	}
	ts := th.turn.Load()
	if ts == nil || ts.detached.Load() {
		return ErrNoRunningTurn
	}
	// A Prompt's turn may still be loading its thread, or not be reported
	// started yet; one that ends first (its ctx with it) takes no steer.
	select {
	case <-ts.started:
	case <-ts.ctx.Done():
		return ErrNoRunningTurn
	case <-ctx.Done():
		return ctx.Err()
	}
	ts.mu.Lock()
	turnID := ts.id
	ts.mu.Unlock()
	err := c.call(ctx, "turn/steer", turnSteerParams{
		ThreadID: th.id, ExpectedTurnID: turnID, Input: []userInput{{Type: "text", Text: text}},
	}, nil)
	if err != nil {
		return fmt.Errorf("steer codex turn %s: %w", turnID, err)
	}
	return nil
}

// reviewStartedText is the progress line of a review starting; what Codex
// names as reviewed is its own words, one line.
func reviewStartedText(what string) string {
	if what == "" {
		return "Reviewing"
	}
	return "Reviewing: " + what
}

// hideReviewerOutput keeps the reviewer's own messages off the card:
// they are its raw findings, which Codex renders into the review message
// it sends once the review ends (an agentMessage of phase null: the
// answer).
func (t *translator) hideReviewerOutput(itemID string) {
	if t.hidden == nil {
		t.hidden = make(map[string]struct{})
	}
	t.hidden[itemID] = struct{}{}
}

func (t *translator) isHidden(itemRaw []byte) bool {
	_, ok := t.hidden[string(itemRaw)]
	return ok
}

// reviewerOutput reports whether itemID is a hidden reviewer message, and
// forgets it: it completed.
func (t *translator) reviewerOutput(itemID string) bool {
	if _, ok := t.hidden[itemID]; !ok {
		return false
	}
	delete(t.hidden, itemID)
	return true
}
