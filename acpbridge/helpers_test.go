package acpbridge_test

import (
	"fmt"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// recorder is a Sink that keeps what it received, merging consecutive chunks
// of one message so a test can compare whole texts.
type recorder struct {
	mu     sync.Mutex
	events []event
	// onUpdate, when set, is called (outside the lock) for each update.
	onUpdate func(acp.SessionUpdate)
}

type event struct {
	kind string // thought, message, user, notice <level>, or the update kind
	id   string // messageId or tool call id
	text string
}

func (r *recorder) Update(u acp.SessionUpdate) {
	var e event
	kind, _ := acpbridge.UpdateKind(u)
	switch {
	case u.AgentThoughtChunk != nil:
		e = event{kind: "thought", id: deref(u.AgentThoughtChunk.MessageId), text: blockText(u.AgentThoughtChunk.Content)}
	case u.AgentMessageChunk != nil:
		e = event{kind: "message", id: deref(u.AgentMessageChunk.MessageId), text: blockText(u.AgentMessageChunk.Content)}
	case u.UserMessageChunk != nil && kind == "user_message_chunk":
		e = event{kind: "user", id: deref(u.UserMessageChunk.MessageId), text: blockText(u.UserMessageChunk.Content)}
	case u.ToolCall != nil:
		e = event{kind: "tool_call", id: string(u.ToolCall.ToolCallId), text: fmt.Sprintf("%s [%s] %s", u.ToolCall.Title, u.ToolCall.Kind, u.ToolCall.Status)}
	case u.ToolCallUpdate != nil:
		status := ""
		if u.ToolCallUpdate.Status != nil {
			status = string(*u.ToolCallUpdate.Status)
		}
		e = event{kind: "tool_call_update", id: string(u.ToolCallUpdate.ToolCallId), text: status}
	default:
		e = event{kind: kind}
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	f := r.onUpdate
	r.mu.Unlock()
	if f != nil {
		f(u)
	}
}

func (r *recorder) Notice(n acpbridge.Notice) {
	r.mu.Lock()
	r.events = append(r.events, event{kind: "notice " + string(n.Level), text: n.Text})
	r.mu.Unlock()
}

// lines renders the events, chunks of one message merged into one line.
func (r *recorder) lines(keep ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	var last *event
	for _, e := range r.events {
		if len(keep) > 0 && !contains(keep, e.kind) {
			continue
		}
		if last != nil && (e.kind == "thought" || e.kind == "message" || e.kind == "user") && e.kind == last.kind && e.id == last.id {
			last.text += e.text
			out[len(out)-1] = last.kind + ": " + last.text
			continue
		}
		e := e
		last = &e
		if e.text == "" {
			out = append(out, e.kind)
		} else {
			out = append(out, e.kind+": "+e.text)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func blockText(b acp.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return "<non-text>"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s || strings.HasPrefix(s, x+" ") {
			return true
		}
	}
	return false
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
