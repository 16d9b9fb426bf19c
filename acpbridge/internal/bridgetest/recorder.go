package bridgetest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// Recorder is a Sink that keeps what it received, merging consecutive chunks
// of one message so a test can compare whole texts. Its zero value is ready.
type Recorder struct {
	mu     sync.Mutex
	events []event
	// OnUpdate, when set, is called (outside the lock) for each update.
	OnUpdate func(acp.SessionUpdate)
	// Permit, when set, decides permission requests; nil answers each
	// Cancelled, as a sink that cannot ask anyone does.
	Permit func(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse
}

type event struct {
	kind string // thought, message, user, notice <level>, or the update kind
	id   string // messageId or tool call id
	text string
}

// Update records u as one event.
func (r *Recorder) Update(u acp.SessionUpdate) {
	e := toEvent(u)
	r.mu.Lock()
	r.events = append(r.events, e)
	f := r.OnUpdate
	r.mu.Unlock()
	if f != nil {
		f(u)
	}
}

func toEvent(u acp.SessionUpdate) event {
	kind, _ := acpbridge.UpdateKind(u)
	switch {
	case u.AgentThoughtChunk != nil:
		return event{kind: "thought", id: Deref(u.AgentThoughtChunk.MessageId), text: BlockText(u.AgentThoughtChunk.Content)}
	case u.AgentMessageChunk != nil:
		return event{kind: "message", id: Deref(u.AgentMessageChunk.MessageId), text: BlockText(u.AgentMessageChunk.Content)}
	case u.UserMessageChunk != nil && kind == "user_message_chunk":
		return event{kind: "user", id: Deref(u.UserMessageChunk.MessageId), text: BlockText(u.UserMessageChunk.Content)}
	case u.ToolCall != nil:
		return event{kind: "tool_call", id: string(u.ToolCall.ToolCallId), text: fmt.Sprintf("%s [%s] %s", u.ToolCall.Title, u.ToolCall.Kind, u.ToolCall.Status)}
	case u.ToolCallUpdate != nil:
		status := ""
		if u.ToolCallUpdate.Status != nil {
			status = string(*u.ToolCallUpdate.Status)
		}
		return event{kind: "tool_call_update", id: string(u.ToolCallUpdate.ToolCallId), text: status}
	}
	return event{kind: kind}
}

// Notice records n as "notice <level>: text".
func (r *Recorder) Notice(n acpbridge.Notice) {
	r.mu.Lock()
	r.events = append(r.events, event{kind: "notice " + string(n.Level), text: n.Text})
	r.mu.Unlock()
}

// RequestPermission asks Permit.
func (r *Recorder) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	if r.Permit == nil {
		return acpbridge.Cancelled()
	}
	return r.Permit(ctx, req)
}

// Deciding is a Permit that answers every request as p decides it, without
// the notice Policy.Wrap adds.
func Deciding(p acpbridge.Policy) func(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return func(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		return p.Decide(req)
	}
}

// Lines renders the events as "kind: text" (or just the kind), chunks of
// one message merged into one line. With keep, only the events of those
// kinds ("notice" keeps every notice level).
func (r *Recorder) Lines(keep ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	var last *event
	for _, e := range r.events {
		if len(keep) > 0 && !kept(keep, e.kind) {
			continue
		}
		if last != nil && (e.kind == "thought" || e.kind == "message" || e.kind == "user") && e.kind == last.kind && e.id == last.id {
			last.text += e.text
			out[len(out)-1] = last.kind + ": " + last.text
			continue
		}
		last = &e
		if e.text == "" {
			out = append(out, e.kind)
		} else {
			out = append(out, e.kind+": "+e.text)
		}
	}
	return out
}

func kept(keep []string, kind string) bool {
	for _, k := range keep {
		if k == kind || strings.HasPrefix(kind, k+" ") {
			return true
		}
	}
	return false
}

// Deref is *s, or "" for nil.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// BlockText is a content block's text, "<non-text>" for any other kind.
func BlockText(b acp.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return "<non-text>"
}

// Unasked, embedded in a test's Sink, answers every permission request
// Cancelled, as a sink that cannot ask anyone does.
type Unasked struct{}

// RequestPermission answers Cancelled.
func (Unasked) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}
