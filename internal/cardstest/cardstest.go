// Package cardstest holds recorded turns for tests of card renderers: the
// neutral ones in cards, and those that live with their platform or page
// (bot/wecom's template card, the playground's HTML). Each renderer's golden
// files then speak of the same turns.
package cardstest

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
)

// Scenarios names the recorded turns under testdata.
var Scenarios = []string{"commentary", "tools_plan", "chinese_code", "empty_answer", "failed", "cancelled"}

//go:embed testdata/*.jsonl
var recorded embed.FS

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Event is one line of a recorded turn: an ACP session update (as the agent
// sent it on the wire), a notice, or a status change from the bot.
type Event struct {
	Update *acp.SessionUpdate `json:"update,omitempty"`
	Notice *struct {
		Level string `json:"level"`
		Text  string `json:"text"`
	} `json:"notice,omitempty"`
	Status *struct {
		State  string `json:"state"`
		Detail string `json:"detail"`
	} `json:"status,omitempty"`
}

// Events reads the recorded turn name.
func Events(t testing.TB, name string) []Event {
	t.Helper()
	data, err := recorded.ReadFile("testdata/" + name + ".jsonl")
	if err != nil {
		t.Fatalf("open recorded turn: %v", err)
	}
	var evs []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s.jsonl line %d: %v", name, n, err)
		}
		evs = append(evs, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return evs
}

// ApplyTo folds the event into c.
func (e Event) ApplyTo(t testing.TB, c *cards.Card) {
	t.Helper()
	switch {
	case e.Update != nil:
		c.Apply(*e.Update)
	case e.Notice != nil:
		c.Notice(e.Notice.Level, e.Notice.Text)
	case e.Status != nil:
		c.SetStatus(cards.Status{State: parseState(t, e.Status.State), Detail: e.Status.Detail})
	}
}

func parseState(t testing.TB, s string) cards.State {
	switch s {
	case "running":
		return cards.StateRunning
	case "waiting":
		return cards.StateWaitingApproval
	case "done":
		return cards.StateDone
	case "cancelled":
		return cards.StateCancelled
	case "failed":
		return cards.StateFailed
	}
	t.Fatalf("unknown state %q in recorded turn", s)
	return 0
}

// Card is the card of the recorded turn name.
func Card(t testing.TB, name string, opts ...cards.Option) *cards.Card {
	t.Helper()
	c := cards.New(opts...)
	for _, e := range Events(t, name) {
		e.ApplyTo(t, c)
	}
	return c
}

// LongTurn is a turn whose answer needs several WeCom messages: prose in
// English and Chinese, code blocks (one of them longer than a frame), and
// enough commentary and tool calls that progress must be trimmed.
func LongTurn() []acp.SessionUpdate {
	var us []acp.SessionUpdate
	for i := range 40 {
		us = append(us, Thought(fmt.Sprintf("msg_c%d", i), fmt.Sprintf("Step %d: looking at file %d and what it does to the build.", i, i)))
		id := acp.ToolCallId(fmt.Sprintf("call_%d", i))
		us = append(us, acp.StartToolCall(id, fmt.Sprintf("Read src/file%d.go", i), acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		us = append(us, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
	}
	for i := range 60 {
		us = append(us, Msg("msg_answer", fmt.Sprintf("## Section %d\n\nThis paragraph explains part %d of the change in plain words, long enough to matter. ", i, i)))
		us = append(us, Msg("msg_answer", "第二段用中文说明：这一部分修改了解析器的边界条件，并补充了测试。\n\n"))
		if i%10 == 3 {
			var code strings.Builder
			code.WriteString("```go\n")
			for j := range 40 {
				fmt.Fprintf(&code, "func step%d_%d() error { return check(%d, \"值%d\") }\n", i, j, j, j)
			}
			code.WriteString("```\n\n")
			us = append(us, Msg("msg_answer", code.String()))
		}
	}
	// One code block longer than a whole frame: it must be closed and
	// reopened across messages.
	var big strings.Builder
	big.WriteString("```python\n")
	for j := range 700 {
		fmt.Fprintf(&big, "print('line %d 行')\n", j)
	}
	big.WriteString("```\n\nThat is all.")
	us = append(us, Msg("msg_answer", big.String()))
	return us
}

// LongCard is the card of LongTurn, finished.
func LongCard(opts ...cards.Option) *cards.Card {
	c := cards.New(opts...)
	for _, u := range LongTurn() {
		c.Apply(u)
	}
	c.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))
	return c
}

// Msg is an answer chunk of message id.
func Msg(id, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
		Content: acp.TextBlock(text), MessageId: idPtr(id), SessionUpdate: "agent_message_chunk"}}
}

// Thought is a thought chunk of message id.
func Thought(id, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
		Content: acp.TextBlock(text), MessageId: idPtr(id), SessionUpdate: "agent_thought_chunk"}}
}

func idPtr(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// Golden compares got with testdata/golden/name of the package under test,
// or rewrites it with -update.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (rerun the test with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; rerun with -update if the change is intended\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// Deliver runs a channel's roll-over loop over a card: each stream shows the
// body from where the previous one had to finish. It returns the final frame
// of every stream.
func Deliver(t testing.TB, c *cards.Card) []cards.StreamFrame {
	t.Helper()
	var out []cards.StreamFrame
	for from := 0; ; {
		fr := c.Stream(from, 0)
		out = append(out, fr)
		if !fr.MustFinish {
			return out
		}
		if fr.BodyEnd <= from {
			t.Fatalf("stream from %d must finish but delivers nothing (end %d)", from, fr.BodyEnd)
		}
		from = fr.BodyEnd
		if len(out) > 10000 {
			t.Fatal("roll-over does not terminate")
		}
	}
}
