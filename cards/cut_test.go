package cards

import (
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func TestEndCut(t *testing.T) {
	for _, c := range []struct {
		name, text  string
		from, shown int
		want        string // text[:cut]
	}{
		{"paragraph", "One. Two.\n\nThree fo", 0, 0, "One. Two.\n\n"},
		{"sentence", "One sentence. Another one that goes on and o", 0, 0, "One sentence. "},
		{"word", "a long line without any stop and a partial wo", 0, 0, "a long line without any stop and a partial "},
		{"a shown half-word is taken back, not the words", "First.\n\nSecond sen", 0, len("First.\n\nSecond sen"), "First.\n\nSecond "},
		{"shown whole words stay", "First.\n\nSecond third", 0, len("First.\n\nSecond "), "First.\n\nSecond "},
		{"one long word stays whole", "ECHO[window-msg-0123456789", 0, 0, "ECHO[window-msg-0123456789"},
		{"after from only", "Old text. ECHO[window-msg-01", len("Old text. "), 0, "Old text. ECHO[window-msg-01"},
		{"cjk", "最终答案是这样的：第一句完成。第二句还没", 0, 0, "最终答案是这样的：第一句完成。"},
		{"ends at a line", "all of it\n", 0, 0, "all of it\n"},
	} {
		var f fenceTracker
		f.feed(c.text, 0)
		if got := c.text[:endCut(c.text, c.from, c.shown, len(c.text), &f)]; got != c.want {
			t.Errorf("%s: cut %q, want %q", c.name, got, c.want)
		}
	}
}

func answerCard(text string) *Card {
	c := New(WithStreamLimit(4096))
	c.Apply(acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{Content: acp.TextBlock("working")}})
	c.Apply(acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock(text)}})
	return c
}

// A stream that ends early stops at a word; the continuation carries the
// rest exactly once, marked, with no <think>.
func TestStreamEndAndContinuation(t *testing.T) {
	body := "最终答案: the first part is done.\n\nECHO[window-msg-0123456789] and mo"
	c := answerCard(body)
	end := c.StreamEnd(0, len(body))
	want := "<think>\nworking\n</think>\n\n最终答案: the first part is done.\n\nECHO[window-msg-0123456789] and "
	if end.Content != want || end.BodyEnd != len(want)-len("<think>\nworking\n</think>\n\n") {
		t.Fatalf("early end %q (body end %d)\nwant %q", end.Content, end.BodyEnd, want)
	}
	c.Apply(acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock("re text.")}})
	c.SetStatus(Status{State: StateDone})
	cont := c.Continuation(end.BodyEnd)
	if cont.Content != ContinuationLead+FrameGap+"more text." || strings.Contains(cont.Content, ThinkOpen) {
		t.Fatalf("continuation %q", cont.Content)
	}
	if got := c.Body()[:end.BodyEnd] + c.Body()[cont.BodyStart:cont.BodyEnd]; got != c.Body() {
		t.Fatalf("stream and continuation hold %q, want the answer %q once", got, c.Body())
	}
	c.SetStatus(Status{State: StateFailed, Detail: "boom"})
	if got := c.Continuation(end.BodyEnd).Content; got != ContinuationLead+FrameGap+"more text."+FrameGap+"❌ Failed: boom" {
		t.Fatalf("failed continuation %q", got)
	}
}
