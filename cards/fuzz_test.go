package cards

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"
)

// script turns fuzz bytes into a sequence of card operations, so the fuzzer
// explores any order of chunks, tool calls, plans, notices and statuses.
type script struct {
	data []byte
}

func (s *script) byte() (byte, bool) {
	if len(s.data) == 0 {
		return 0, false
	}
	b := s.data[0]
	s.data = s.data[1:]
	return b, true
}

// text takes a length byte and then that many bytes (scaled up, so long
// texts are reachable from short inputs).
func (s *script) text() string {
	n, _ := s.byte()
	size := int(n)
	if n >= 200 {
		size = int(n-200) * 97 // up to ~5 KB of repeated text
	}
	if size <= len(s.data) {
		t := string(s.data[:size])
		s.data = s.data[size:]
		return t
	}
	if len(s.data) == 0 {
		return strings.Repeat("x", size)
	}
	t := strings.Repeat(string(s.data), size/len(s.data)+1)[:size]
	s.data = nil
	return t
}

var fuzzIDs = []string{"", "msg_a", "msg_b", "msg_c"}

// op applies one operation; it returns the text it added to the body ("" if
// none) and whether the card's status was set.
func (s *script) op(c *Card) (bodyText string, ok bool) {
	b, ok := s.byte()
	if !ok {
		return "", false
	}
	id := fuzzIDs[int(b>>4)%len(fuzzIDs)]
	tool := acp.ToolCallId(fmt.Sprintf("call_%d", b>>5))
	statuses := []acp.ToolCallStatus{"", acp.ToolCallStatusPending, acp.ToolCallStatusInProgress, acp.ToolCallStatusCompleted, acp.ToolCallStatusFailed}
	switch b % 9 {
	case 0, 1, 2:
		t := s.text()
		c.Apply(msg(id, t))
		return t, true
	case 3, 4:
		c.Apply(thought(id, s.text()))
	case 5:
		c.Apply(acp.StartToolCall(tool, s.text(), acp.WithStartStatus(statuses[int(b>>3)%len(statuses)])))
	case 6:
		c.Apply(acp.UpdateToolCall(tool, acp.WithUpdateStatus(statuses[int(b>>3)%len(statuses)]), acp.WithUpdateTitle(s.text())))
	case 7:
		var es []acp.PlanEntry
		for i := range int(b>>5) + 1 {
			es = append(es, acp.PlanEntry{Content: s.text(), Status: []acp.PlanEntryStatus{"pending", "in_progress", "completed"}[i%3]})
		}
		c.Apply(acp.UpdatePlan(es...))
	case 8:
		switch b >> 5 {
		case 0, 1:
			c.SetStatus(WaitingApproval(s.text()))
		case 2:
			c.SetStatus(Running())
		default:
			c.Notice([]string{"info", "warning", "error"}[int(b>>5)%3], s.text())
		}
	}
	return "", true
}

func checkFrame(t *testing.T, c *Card, fr StreamFrame, limit int) {
	t.Helper()
	if len(fr.Content) > limit {
		t.Fatalf("frame has %d bytes, limit %d", len(fr.Content), limit)
	}
	if !utf8.ValidString(fr.Content) {
		t.Fatalf("frame is not valid UTF-8: %q", fr.Content)
	}
	seg := c.Body()[fr.BodyStart:fr.BodyEnd]
	if !strings.Contains(fr.Content, seg) {
		t.Fatalf("frame does not show its body segment [%d,%d) verbatim", fr.BodyStart, fr.BodyEnd)
	}
	if fr.MustFinish && fr.BodyEnd <= fr.BodyStart {
		t.Fatalf("frame must finish but delivers no body")
	}
}

// visibleOutsideThink reports whether content shows something outside the
// folded <think> block.
func visibleOutsideThink(content string) bool {
	if strings.HasPrefix(content, thinkOpen) {
		if i := strings.Index(content, thinkClose); i >= 0 {
			content = content[i+len(thinkClose):]
		}
	}
	return strings.TrimSpace(content) != ""
}

func runScript(t *testing.T, data []byte) {
	limitByte := byte(0)
	if len(data) > 0 {
		limitByte, data = data[0], data[1:]
	}
	limit := minStreamLimit + int(limitByte)*16
	style := ProgressThink
	if limitByte&1 == 1 {
		style = ProgressQuote
	}
	c := New(WithStreamLimit(limit), WithProgressStyle(style))
	s := &script{data: data}

	// The bot: one stream at a time, a frame after every change (the
	// tightest throttle), rolling over whenever a frame says so.
	var delivered strings.Builder
	var chunks []string
	from, lastEnd := 0, 0
	for {
		added, ok := s.op(c)
		if !ok {
			break
		}
		if added != "" {
			chunks = append(chunks, strings.ToValidUTF8(added, "\uFFFD"))
		}
		fr := c.Stream(from, lastEnd)
		checkFrame(t, c, fr, limit)
		if fr.BodyEnd < lastEnd {
			t.Fatalf("a stream's body went back from %d to %d", lastEnd, fr.BodyEnd)
		}
		lastEnd = fr.BodyEnd
		if fr.MustFinish {
			delivered.WriteString(c.Body()[fr.BodyStart:fr.BodyEnd])
			from, lastEnd = fr.BodyEnd, fr.BodyEnd
		}
	}
	for _, st := range []Status{Finished(acp.StopReasonEndTurn, nil), Finished(acp.StopReasonCancelled, nil), Finished("", fmt.Errorf("boom"))} {
		// Finish the turn in each way on a copy of the delivery state.
		c.SetStatus(st)
		var out strings.Builder
		out.WriteString(delivered.String())
		for f, shown := from, lastEnd; ; shown = 0 {
			fr := c.Stream(f, shown)
			checkFrame(t, c, fr, limit)
			if fr.BodyEnd < shown {
				t.Fatalf("the final frame took back body text: end %d, shown %d", fr.BodyEnd, shown)
			}
			out.WriteString(c.Body()[fr.BodyStart:fr.BodyEnd])
			if !visibleOutsideThink(fr.Content) {
				t.Fatalf("finished frame (%v) shows nothing outside <think>: %q", st, fr.Content)
			}
			if !fr.MustFinish {
				break
			}
			f = fr.BodyEnd
		}
		if out.String() != c.Body() {
			t.Fatalf("streams delivered %d bytes of a %d-byte body, or not in order", out.Len(), len(c.Body()))
		}
	}
	// Every chunk of answer text is in the body, in order.
	body := c.Body()
	at := 0
	for _, ch := range chunks {
		i := strings.Index(body[at:], ch)
		if i < 0 {
			t.Fatalf("chunk %q missing from the body", ch)
		}
		at += i + len(ch)
	}

	for _, p := range c.Markdown(markdownMax) {
		if len(p) > markdownMax || !utf8.ValidString(p) {
			t.Fatalf("markdown part of %d bytes (valid UTF-8: %v)", len(p), utf8.ValidString(p))
		}
	}
}

func FuzzCardFrames(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte("\x10\x00\x05hello\x03\x04think\x00\xff"))
	f.Add([]byte("\x00\x00\x14```go\nfunc main(){}\n\x00\xd0x\x08"))
	f.Add([]byte("\x05\x01\x0b中文的回答，很长。\x00\xff\x10\x00\xfa```\x08"))
	f.Add([]byte("\x80\x05\x03ls\x06\x03\x04ok\x07\x03a\x03b\x03c\x28\x03err\x09\x00"))
	f.Fuzz(func(t *testing.T, data []byte) { runScript(t, data) })
}

func FuzzSplitMarkdown(f *testing.F) {
	f.Add("para one\n\npara two", uint16(200))
	f.Add("```go\n"+strings.Repeat("x := 1\n", 80)+"```\ntext", uint16(150))
	f.Add(strings.Repeat("中文", 300), uint16(100))
	f.Add("~~~~ ~x\n"+strings.Repeat("y\n", 200), uint16(150))
	f.Fuzz(func(t *testing.T, text string, maxBytes uint16) {
		checkParts(t, text, int(maxBytes))
	})
}
