package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// sdkLine is what acp-go-sdk itself writes for a session/update notification
// (Connection.SendNotification marshals this envelope, then a newline).
func sdkLine(t testing.TB, session acp.SessionId, u acp.SessionUpdate) string {
	t.Helper()
	params, err := json.Marshal(acp.SessionNotification{SessionId: session, Update: u})
	if err != nil {
		t.Fatal(err)
	}
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method,omitempty"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", acp.ClientMethodSessionUpdate, params}
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func messageChunk(id *string, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
		SessionUpdate: "agent_message_chunk", Content: acp.TextBlock(text), MessageId: id,
	}}
}

func thoughtChunk(id *string, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
		SessionUpdate: "agent_thought_chunk", Content: acp.TextBlock(text), MessageId: id,
	}}
}

var encodeCases = []string{
	"", "plain", `quote " and backslash \`, "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "<b>&amp;</b>", "line\u2028para\u2029end", "héllo 世界 🎉",
	"bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate", "trailing \xe4\xb8",
}

func TestAppendTextNotificationMatchesSDK(t *testing.T) {
	id := "msg_0a1b"
	for _, text := range encodeCases {
		for _, mid := range []*string{nil, &id} {
			for _, kind := range []string{"agent_message_chunk", "agent_thought_chunk"} {
				u := messageChunk(mid, text)
				if kind == "agent_thought_chunk" {
					u = thoughtChunk(mid, text)
				}
				want := sdkLine(t, "sess-\"1\"", u)
				got := string(appendTextNotification(nil, "sess-\"1\"", kind, mid, []string{text}))
				if got != want {
					t.Errorf("%s %q (id %v):\n got %s\nwant %s", kind, text, mid != nil, got, want)
				}
				// Split in two, it must read as the whole text.
				half := len(text) / 2
				got = string(appendTextNotification(nil, "sess-\"1\"", kind, mid, []string{text[:half], text[half:]}))
				if got != want {
					t.Errorf("%s %q split at %d:\n got %s\nwant %s", kind, text, half, got, want)
				}
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range encodeCases {
		f.Add(s, uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint) {
		plain, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, plain) {
			t.Fatalf("appendJSONString(%q) = %s, encoding/json %s", s, got, plain)
		}
		id := s
		want := sdkLine(t, "s", messageChunk(&id, s))
		if got := string(appendTextNotification(nil, "s", "agent_message_chunk", &id, []string{s})); got != want {
			t.Fatalf("text notification of %q:\n got %s\nwant %s", s, got, want)
		}
		// Merged from two deltas cut anywhere, it is the same chunk.
		i := int(cut % uint(len(s)+1))
		if got := string(appendTextNotification(nil, "s", "agent_message_chunk", &id, []string{s[:i], s[i:]})); got != want {
			t.Fatalf("text notification of %q cut at %d:\n got %s\nwant %s", s, i, got, want)
		}
	})
}

// wire decodes notification lines as a client reads them.
func wire(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var msg struct {
			Method string                  `json:"method"`
			Params acp.SessionNotification `json:"params"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		u := msg.Params.Update
		kind, _ := acpbridge.UpdateKind(u)
		switch {
		case u.AgentMessageChunk != nil:
			got = append(got, fmt.Sprintf("%s %s %q meta=%v", kind, deref(u.AgentMessageChunk.MessageId), u.AgentMessageChunk.Content.Text.Text, u.AgentMessageChunk.Meta != nil))
		case u.AgentThoughtChunk != nil:
			got = append(got, fmt.Sprintf("%s %s %q meta=%v", kind, deref(u.AgentThoughtChunk.MessageId), u.AgentThoughtChunk.Content.Text.Text, u.AgentThoughtChunk.Meta != nil))
		default:
			got = append(got, kind)
		}
	}
	return got
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// TestOutboxMergesOnlyAdjacentSameMessageText writes one batch and checks
// which chunks became one: same kind and message id, nothing in between.
func TestOutboxMergesOnlyAdjacentSameMessageText(t *testing.T) {
	a, b := "a", "b"
	withMeta := messageChunk(&a, "m")
	withMeta.AgentMessageChunk.Meta = map[string]any{"x": 1}
	batch := []outItem{
		{u: messageChunk(&a, "1")},
		{u: messageChunk(&a, "2<&>")},
		{u: thoughtChunk(&a, "3")},
		{u: thoughtChunk(&a, "4")},
		{u: messageChunk(&a, "5")},
		{u: messageChunk(&b, "6")},
		{u: messageChunk(nil, "7")},
		{u: messageChunk(nil, "8")},
		{u: acp.StartToolCall("call_1", "ls", acp.WithStartKind(acp.ToolKindExecute))},
		{u: messageChunk(&b, "9")},
		{u: acpbridge.NoticeUpdate(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "careful"})},
		{u: thoughtChunk(&b, "10")},
		{u: messageChunk(&b, "11")},
		{u: withMeta},
		{u: messageChunk(&b, "12")},
		{barrier: make(chan error, 1)},
		{u: messageChunk(&b, "13")},
	}
	var out bytes.Buffer
	var writes int
	o := &outbox{session: "s", w: writerFunc(func(p []byte) (int, error) { writes++; return out.Write(p) })}
	o.write(batch, nil, nil)
	want := []string{
		`agent_message_chunk a "12<&>" meta=false`,
		`agent_thought_chunk a "34" meta=false`,
		`agent_message_chunk a "5" meta=false`,
		`agent_message_chunk b "6" meta=false`,
		`agent_message_chunk - "78" meta=false`,
		`tool_call`,
		`agent_message_chunk b "9" meta=false`,
		`agent_thought_chunk - "careful" meta=true`,
		`agent_thought_chunk b "10" meta=false`,
		`agent_message_chunk b "11" meta=false`,
		`agent_message_chunk a "m" meta=true`,
		`agent_message_chunk b "12" meta=false`,
		`agent_message_chunk b "13" meta=false`,
	}
	got := wire(t, out.String())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("wire:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if writes != 2 {
		t.Errorf("%d writes, want 2 (one before the flush point, one after)", writes)
	}
	select {
	case <-batch[15].barrier:
	default:
		t.Error("flush point not released")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestOutboxKeepsEveryDeltaInOrder pushes a long stream through a running
// outbox: however it batches, the text arrives whole and in order.
func TestOutboxKeepsEveryDeltaInOrder(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	o := newOutbox("s", writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	}), slog.New(slog.DiscardHandler))
	defer func() { o.close(); <-o.done }()
	id := "m"
	var want strings.Builder
	for i := range 5000 {
		d := fmt.Sprintf("d%04d ", i)
		want.WriteString(d)
		o.push(messageChunk(&id, d))
	}
	if err := o.flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var got strings.Builder
	for _, line := range wire(t, out.String()) {
		var text string
		if _, err := fmt.Sscanf(strings.TrimPrefix(line, "agent_message_chunk m "), "%q", &text); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		got.WriteString(text)
	}
	if got.String() != want.String() {
		t.Errorf("text differs: got %d bytes, want %d", got.Len(), want.Len())
	}
}
