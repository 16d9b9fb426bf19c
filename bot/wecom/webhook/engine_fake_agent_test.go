package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// fakeAgent is a scripted acpbridge.Agent for the engine's own logic; the
// end-to-end tests with the real Codex drive the engine through the WeCom
// handler. What a prompt does depends on its text:
//
//	block     – waits until the turn is cancelled
//	gate:NAME – waits until release(NAME), then answers; NAME ends at the
//	            first space, so a long prompt can still name a gate
//	half:NAME – answers the first half, waits until release(NAME), then
//	            answers the rest
//	ask       – asks the sink's permission for "run ls", then answers
//	fail      – fails with "codex crashed"
//	big:N     – answers N bytes
//	other     – answers "answer to: <text>"
//
// Every turn first sends a thought "working on: <text>".
type fakeAgent struct {
	name string

	mu       sync.Mutex
	sessions map[acp.SessionId]bool
	next     int
	prompts  []string
	cancels  map[acp.SessionId]chan struct{}
	gates    map[string]chan struct{}
	started  chan string
	// answers, when set, receives the sink's answer to each "ask".
	answers chan acp.RequestPermissionResponse
}

func newFakeAgent(name string) *fakeAgent {
	return &fakeAgent{
		name:     name,
		sessions: map[acp.SessionId]bool{},
		cancels:  map[acp.SessionId]chan struct{}{},
		gates:    map[string]chan struct{}{},
		started:  make(chan string, 100),
	}
}

func (f *fakeAgent) NewSession(_ context.Context, cwd string) (acp.SessionId, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := acp.SessionId(fmt.Sprintf("%s-%d", f.name, f.next))
	f.sessions[id] = true
	return id, nil
}

func (f *fakeAgent) LoadSession(_ context.Context, id acp.SessionId, _ string, _ acpbridge.Sink) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sessions[id] {
		return fmt.Errorf("thread %s not found", id)
	}
	return nil
}

func (f *fakeAgent) gate(name string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.gates[name]
	if g == nil {
		g = make(chan struct{})
		f.gates[name] = g
	}
	return g
}

func (f *fakeAgent) release(name string) { close(f.gate(name)) }

func (f *fakeAgent) Prompt(ctx context.Context, id acp.SessionId, p acpbridge.Prompt, sink acpbridge.Sink) (acp.StopReason, error) {
	text := p.Text
	f.mu.Lock()
	if !f.sessions[id] {
		f.mu.Unlock()
		return "", fmt.Errorf("prompt in unknown session %s", id)
	}
	f.prompts = append(f.prompts, text)
	cancel := make(chan struct{})
	f.cancels[id] = cancel
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.cancels, id)
		f.mu.Unlock()
	}()
	for _, u := range thoughtOf(text) {
		sink.Update(u)
	}
	f.started <- text

	switch {
	case text == "block":
		<-cancel
		return acp.StopReasonCancelled, nil
	case strings.HasPrefix(text, "gate:"):
		name, _, _ := strings.Cut(strings.TrimPrefix(text, "gate:"), " ")
		select {
		case <-f.gate(name):
		case <-cancel:
			return acp.StopReasonCancelled, nil
		}
	case strings.HasPrefix(text, "half:"):
		a := answer(text)
		sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m1", a[:len(a)/2]))
		select {
		case <-f.gate(strings.TrimPrefix(text, "half:")):
		case <-cancel:
			return acp.StopReasonCancelled, nil
		}
		sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m1", a[len(a)/2:]))
		return acp.StopReasonEndTurn, nil
	case text == "ask":
		title := "run ls"
		resp := sink.RequestPermission(ctx, acp.RequestPermissionRequest{
			SessionId: id,
			ToolCall:  acp.ToolCallUpdate{ToolCallId: "t1", Title: &title},
			Options: []acp.PermissionOption{
				{OptionId: "yes", Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow"},
				{OptionId: "no", Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject"},
			},
		})
		if f.answers != nil {
			f.answers <- resp
		}
	case text == "fail":
		return "", errors.New("codex crashed")
	}
	for _, u := range answerOf(text) {
		sink.Update(u)
	}
	return acp.StopReasonEndTurn, nil
}

func (f *fakeAgent) Cancel(_ context.Context, id acp.SessionId) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.cancels[id]; ok {
		close(c)
		delete(f.cancels, id)
	}
	return nil
}

func (f *fakeAgent) Close() error { return nil }

func (f *fakeAgent) Prompts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.prompts...)
}

func (f *fakeAgent) Sessions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

func thoughtOf(text string) []acp.SessionUpdate {
	return []acp.SessionUpdate{acpbridge.AgentText(acpbridge.PhaseCommentary, "c1", "working on: "+text)}
}

// answer is the body text a prompt produces.
func answer(text string) string {
	if n, ok := strings.CutPrefix(text, "big:"); ok {
		size, _ := strconv.Atoi(n)
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "line %d of a long answer, with some words to fill it up.\n", i)
			if i%10 == 9 {
				b.WriteString("\n")
			}
		}
		return b.String()[:size]
	}
	return "answer to: " + text
}

// answerOf streams the answer in chunks of at most 1000 bytes.
func answerOf(text string) []acp.SessionUpdate {
	a := answer(text)
	var out []acp.SessionUpdate
	for len(a) > 0 {
		n := min(1000, len(a))
		out = append(out, acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m1", a[:n]))
		a = a[n:]
	}
	return out
}
