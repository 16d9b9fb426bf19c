package codextest

import (
	"strings"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// TestUnscriptedRequestFailsTurn checks that a model request the script has
// no answer for ends the turn as failed at once (no retries, no hang) and is
// reported by the server.
func TestUnscriptedRequestFailsTurn(t *testing.T) {
	t.Parallel()
	h := Start(t, sm.Sequence())
	h.AllowServerErrors()
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "never", "workspace-write")
	msgs := c.runTurn(thread, "Anyone there?", "")
	if got := turnStatus(t, msgs); got != "failed" {
		t.Errorf("turn/completed status = %q, want failed", got)
	}
	var errorNotes []string
	for _, m := range msgs {
		if m.Method == "error" {
			errorNotes = append(errorNotes, string(m.Params))
		}
	}
	if len(errorNotes) == 0 {
		t.Errorf("no error notification before turn/completed")
	}
	if err := h.Server.Err(); err == nil || !strings.Contains(err.Error(), "request 1 has no scripted response") {
		t.Errorf("server Err() = %v", err)
	}
	if n := len(h.Server.ModelRequests()); n != 1 {
		t.Errorf("model requests = %d, want 1 (no retries)", n)
	}
}

// TestFailedResponseFailsTurn checks that a scripted `response.failed` ends
// the turn as failed with the scripted message.
func TestFailedResponseFailsTurn(t *testing.T) {
	t.Parallel()
	h := Start(t, sm.Sequence(sm.Response{
		Items: []sm.Item{sm.MessageDeltas(sm.PhaseCommentary, "Starting")},
		Fail:  "model overloaded",
	}))
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "never", "workspace-write")
	msgs := c.runTurn(thread, "Try", "")
	if got := turnStatus(t, msgs); got != "failed" {
		t.Errorf("turn/completed status = %q, want failed", got)
	}
	// Codex reports response.failed as a failed turn whose error carries the
	// API's message.
	const want = "stream disconnected before completion: model overloaded"
	if last := string(msgs[len(msgs)-1].Params); !strings.Contains(last, want) {
		t.Errorf("turn/completed = %s, want its error to say %q", last, want)
	}
}
