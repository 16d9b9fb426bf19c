package cards

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

var scenarios = []string{"commentary", "tools_plan", "chinese_code", "empty_answer", "failed", "cancelled"}

// longTurn is a turn whose answer needs several WeCom messages: prose in
// English and Chinese, code blocks (one of them longer than a frame), and
// enough commentary and tool calls that progress must be trimmed.
func longTurn() []acp.SessionUpdate {
	var us []acp.SessionUpdate
	for i := range 40 {
		us = append(us, thought(fmt.Sprintf("msg_c%d", i), fmt.Sprintf("Step %d: looking at file %d and what it does to the build.", i, i)))
		id := acp.ToolCallId(fmt.Sprintf("call_%d", i))
		us = append(us, acp.StartToolCall(id, fmt.Sprintf("Read src/file%d.go", i), acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		us = append(us, acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusCompleted)))
	}
	for i := range 60 {
		us = append(us, msg("msg_answer", fmt.Sprintf("## Section %d\n\nThis paragraph explains part %d of the change in plain words, long enough to matter. ", i, i)))
		us = append(us, msg("msg_answer", "第二段用中文说明：这一部分修改了解析器的边界条件，并补充了测试。\n\n"))
		if i%10 == 3 {
			var code strings.Builder
			code.WriteString("```go\n")
			for j := range 40 {
				fmt.Fprintf(&code, "func step%d_%d() error { return check(%d, \"值%d\") }\n", i, j, j, j)
			}
			code.WriteString("```\n\n")
			us = append(us, msg("msg_answer", code.String()))
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
	us = append(us, msg("msg_answer", big.String()))
	return us
}

func longCard(opts ...Option) *Card {
	c := New(opts...)
	for _, u := range longTurn() {
		c.Apply(u)
	}
	c.SetStatus(Finished(acp.StopReasonEndTurn, nil))
	return c
}

func renderStreams(frames []StreamFrame) string {
	var b strings.Builder
	for i, fr := range frames {
		fmt.Fprintf(&b, "=== stream %d: body [%d,%d) must_finish=%v bytes=%d ===\n", i+1, fr.BodyStart, fr.BodyEnd, fr.MustFinish, len(fr.Content))
		b.WriteString(fr.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func renderAll(t *testing.T, name string, c *Card, style ProgressStyle) {
	t.Helper()
	golden(t, name+".stream_"+string(style)+".md", renderStreams(deliver(t, c)))
	if style != ProgressThink {
		return
	}
	tc := c.TemplateCard(TemplateCardOptions{Source: "wecodex", URL: "https://example.invalid/turn/1"})
	js, err := json.MarshalIndent(tc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, name+".appcard.json", string(js)+"\n")
	var md strings.Builder
	for i, p := range c.AppMarkdown(0) {
		fmt.Fprintf(&md, "=== message %d: %d bytes ===\n%s\n", i+1, len(p), p)
	}
	golden(t, name+".app_markdown.md", md.String())
	golden(t, name+".html", NewHTMLRenderer().Render(c))
}

func TestGolden(t *testing.T) {
	for _, name := range scenarios {
		for _, style := range []ProgressStyle{ProgressThink, ProgressQuote} {
			t.Run(name+"/"+string(style), func(t *testing.T) {
				renderAll(t, name, cardFrom(t, name, WithProgressStyle(style), WithTitle("Fix the parser test")), style)
			})
		}
	}
	for _, style := range []ProgressStyle{ProgressThink, ProgressQuote} {
		t.Run("long/"+string(style), func(t *testing.T) {
			renderAll(t, "long", longCard(WithProgressStyle(style), WithTitle("Explain the whole change in detail, with code")), style)
		})
	}
}

// TestGoldenFrames records the frame after every event of a turn, as a user
// watching the stream would see it.
func TestGoldenFrames(t *testing.T) {
	for _, name := range []string{"commentary", "failed"} {
		t.Run(name, func(t *testing.T) {
			c := New()
			var b strings.Builder
			for i, e := range loadEvents(t, name) {
				e.applyTo(t, c)
				fmt.Fprintf(&b, "=== after event %d ===\n%s\n", i+1, c.Stream(0, 0).Content)
			}
			golden(t, name+".frames.md", b.String())
		})
	}
}
