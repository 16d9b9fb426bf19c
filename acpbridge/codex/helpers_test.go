package codex

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// recorder is a Sink that keeps everything, rendered as short lines so a test
// can compare whole sequences exactly.
type recorder struct {
	mu      sync.Mutex
	updates []acp.SessionUpdate
	notices []acpbridge.Notice
	// permit, when set, decides permission requests; nil answers each
	// Cancelled, as a sink that cannot ask anyone does.
	permit func(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse
}

func (r *recorder) Update(u acp.SessionUpdate) {
	r.mu.Lock()
	r.updates = append(r.updates, u)
	r.mu.Unlock()
}

func (r *recorder) Notice(n acpbridge.Notice) {
	r.mu.Lock()
	r.notices = append(r.notices, n)
	r.mu.Unlock()
}

func (r *recorder) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	if r.permit == nil {
		return acpbridge.Cancelled()
	}
	return r.permit(ctx, req)
}

// lines renders every update, one line each.
func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.updates))
	for _, u := range r.updates {
		out = append(out, render(u))
	}
	return out
}

// merged renders the updates with consecutive chunks of one kind and message
// joined, so a test states whole messages instead of every word.
func (r *recorder) merged() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	lastKey := ""
	for _, u := range r.updates {
		kind, id, text, ok := chunk(u)
		if !ok {
			out = append(out, render(u))
			lastKey = ""
			continue
		}
		key := kind + "[" + id + "]"
		if key == lastKey {
			out[len(out)-1] += text
			continue
		}
		out = append(out, key+" "+text)
		lastKey = key
	}
	return out
}

func (r *recorder) noticeLines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range r.notices {
		out = append(out, string(n.Level)+": "+n.Text)
	}
	return out
}

func chunk(u acp.SessionUpdate) (kind, id, text string, ok bool) {
	var c acp.ContentBlock
	var mid *string
	switch {
	case u.AgentMessageChunk != nil:
		kind, c, mid = "message", u.AgentMessageChunk.Content, u.AgentMessageChunk.MessageId
	case u.AgentThoughtChunk != nil:
		kind, c, mid = "thought", u.AgentThoughtChunk.Content, u.AgentThoughtChunk.MessageId
	case u.UserMessageChunk != nil:
		kind, c, mid = "user", u.UserMessageChunk.Content, u.UserMessageChunk.MessageId
	default:
		return "", "", "", false
	}
	if mid != nil {
		id = *mid
	}
	if c.Text != nil {
		text = c.Text.Text
	}
	return kind, id, text, true
}

func render(u acp.SessionUpdate) string {
	if kind, id, text, ok := chunk(u); ok {
		return kind + "[" + id + "] " + text
	}
	switch {
	case u.ToolCall != nil:
		t := u.ToolCall
		return fmt.Sprintf("tool_call[%s] %s %s %q%s", t.ToolCallId, t.Kind, t.Status, t.Title, contentText(t.Content))
	case u.ToolCallUpdate != nil:
		t := u.ToolCallUpdate
		status := ""
		if t.Status != nil {
			status = string(*t.Status)
		}
		title := ""
		if t.Title != nil {
			title = fmt.Sprintf(" title=%q", *t.Title)
		}
		return fmt.Sprintf("tool_call_update[%s] %s%s%s", t.ToolCallId, status, title, contentText(t.Content))
	case u.Plan != nil:
		var parts []string
		for _, e := range u.Plan.Entries {
			parts = append(parts, e.Content+"="+string(e.Status))
		}
		return "plan " + strings.Join(parts, ", ")
	case u.UsageUpdate != nil:
		return fmt.Sprintf("usage %d/%d", u.UsageUpdate.Used, u.UsageUpdate.Size)
	}
	return "other"
}

func contentText(cs []acp.ToolCallContent) string {
	var b strings.Builder
	for _, c := range cs {
		switch {
		case c.Content != nil && c.Content.Content.Text != nil:
			fmt.Fprintf(&b, " text=%q", c.Content.Content.Text.Text)
		case c.Diff != nil:
			old := ""
			if c.Diff.OldText != nil {
				old = *c.Diff.OldText
			}
			fmt.Fprintf(&b, " diff(%s)=%q->%q", c.Diff.Path, old, c.Diff.NewText)
		}
	}
	return b.String()
}

// only keeps the lines with one of the prefixes.
func only(lines []string, prefixes ...string) []string {
	var out []string
	for _, l := range lines {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// newAgent starts a harness with script and an Agent on it, closed at cleanup.
func newAgent(t *testing.T, script scriptedmodel.Script, home scriptedmodel.HomeOptions, opts Options) (*Agent, *codextest.Harness) {
	t.Helper()
	h := codextest.StartWith(t, script, home)
	return agentOn(t, h, opts), h
}

// agentOn makes an Agent on an existing harness (a second process on the
// same CODEX_HOME), closed at cleanup.
func agentOn(t *testing.T, h *codextest.Harness, opts Options) *Agent {
	t.Helper()
	opts.Bin = h.Bin
	opts.Env = append(h.CodexEnv(), opts.Env...)
	a := New(opts)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// testCtx bounds a test that would otherwise hang on a bug; the bound is a
// safety net, never an assertion about speed.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func prompt(t *testing.T, ctx context.Context, a *Agent, id acp.SessionId, text string) (*recorder, acp.StopReason) {
	t.Helper()
	rec := &recorder{}
	return rec, promptSink(t, ctx, a, id, text, rec)
}

// promptSink runs a turn of text into sink.
func promptSink(t *testing.T, ctx context.Context, a *Agent, id acp.SessionId, text string, sink acpbridge.Sink) acp.StopReason {
	t.Helper()
	stop, err := a.Prompt(ctx, id, acpbridge.TextPrompt(text), sink)
	if err != nil {
		t.Fatalf("Prompt(%q): %v", text, err)
	}
	return stop
}

func indexOf(lines []string, s string) int {
	for i, l := range lines {
		if l == s {
			return i
		}
	}
	return -1
}

// commandOutputOnce checks a command's tool call on a real Codex, which may
// stream its output or not (a 0 ms command streams nothing): the tool call,
// then any in-progress updates, then one completion, and the client ends up
// holding exactly output, delivered once.
func commandOutputOnce(t *testing.T, rec *recorder, id acp.ToolCallId, status acp.ToolCallStatus, output string) {
	t.Helper()
	var mine []string
	for _, l := range rec.lines() {
		if strings.HasPrefix(l, "tool_call[") || strings.HasPrefix(l, "tool_call_update[") {
			if strings.Contains(l, "["+string(id)+"]") {
				mine = append(mine, l)
			}
		}
	}
	ok := len(mine) >= 2 && strings.HasPrefix(mine[0], "tool_call["+string(id)+"] execute in_progress ") &&
		strings.HasPrefix(mine[len(mine)-1], "tool_call_update["+string(id)+"] "+string(status))
	for _, l := range mine[1 : len(mine)-1] {
		ok = ok && strings.HasPrefix(l, "tool_call_update["+string(id)+"] in_progress")
	}
	if !ok {
		t.Fatalf("tool call %s updates = %q, want the call, in-progress updates, then %s", id, mine, status)
	}
	rec.mu.Lock()
	final, n := toolOutput(rec.updates, id, output)
	rec.mu.Unlock()
	if final != output || n != 1 {
		t.Fatalf("client holds %q for %s after delivering the output %d times, want %q once (updates %q)", final, id, n, output, mine)
	}
	t.Logf("tool call %s: %d streamed updates", id, len(mine)-2)
}
