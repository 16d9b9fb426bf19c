package cards_test

import (
	"fmt"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/cardstest"
)

// The caps the golden turns are rendered to: WeCom's, as its channels pass
// them (the AI-bot stream, the self-built app's markdown message).
const (
	streamMax   = 20480
	markdownMax = 2048
)

func renderStreams(frames []cards.StreamFrame) string {
	var b strings.Builder
	for i, fr := range frames {
		fmt.Fprintf(&b, "=== stream %d: body [%d,%d) must_finish=%v bytes=%d ===\n", i+1, fr.BodyStart, fr.BodyEnd, fr.MustFinish, len(fr.Content))
		b.WriteString(fr.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func renderAll(t *testing.T, name string, c *cards.Card, style cards.ProgressStyle) {
	t.Helper()
	cardstest.Golden(t, name+".stream_"+string(style)+".md", renderStreams(cardstest.Deliver(t, c)))
	if style != cards.ProgressThink {
		return
	}
	var md strings.Builder
	for i, p := range c.Markdown(markdownMax) {
		fmt.Fprintf(&md, "=== message %d: %d bytes ===\n%s\n", i+1, len(p), p)
	}
	cardstest.Golden(t, name+".app_markdown.md", md.String())
}

func TestGolden(t *testing.T) {
	for _, name := range cardstest.Scenarios {
		for _, style := range []cards.ProgressStyle{cards.ProgressThink, cards.ProgressQuote} {
			t.Run(name+"/"+string(style), func(t *testing.T) {
				c := cardstest.Card(t, name, cards.WithStreamLimit(streamMax), cards.WithProgressStyle(style), cards.WithTitle("Fix the parser test"))
				renderAll(t, name, c, style)
			})
		}
	}
	for _, style := range []cards.ProgressStyle{cards.ProgressThink, cards.ProgressQuote} {
		t.Run("long/"+string(style), func(t *testing.T) {
			c := cardstest.LongCard(cards.WithStreamLimit(streamMax), cards.WithProgressStyle(style), cards.WithTitle("Explain the whole change in detail, with code"))
			renderAll(t, "long", c, style)
		})
	}
}

// TestGoldenFrames records the frame after every event of a turn, as a user
// watching the stream would see it.
func TestGoldenFrames(t *testing.T) {
	for _, name := range []string{"commentary", "failed"} {
		t.Run(name, func(t *testing.T) {
			c := cards.New(cards.WithStreamLimit(streamMax))
			var b strings.Builder
			for i, e := range cardstest.Events(t, name) {
				e.ApplyTo(t, c)
				fmt.Fprintf(&b, "=== after event %d ===\n%s\n", i+1, c.Stream(0, 0).Content)
			}
			cardstest.Golden(t, name+".frames.md", b.String())
		})
	}
}

// TestRollOverReopensCodeBlock follows a code block across two streams: the
// first closes it, the second reopens it with the same info string.
func TestRollOverReopensCodeBlock(t *testing.T) {
	c := cards.New(cards.WithStreamLimit(512))
	code := "```go\n" + strings.Repeat("fmt.Println(1)\n", 40) + "```\ndone."
	c.Apply(cardstest.Msg("a", code))
	c.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))
	frames := cardstest.Deliver(t, c)
	if len(frames) < 2 {
		t.Fatalf("%d streams, want a roll-over", len(frames))
	}
	first, second := frames[0], frames[1]
	if !strings.HasSuffix(first.Content, "fmt.Println(1)\n```\n\n"+cards.ContinuedMarker) {
		t.Fatalf("first stream does not close its code block:\n%s", first.Content)
	}
	if !strings.HasPrefix(second.Content, "```go\nfmt.Println(1)\n") {
		t.Fatalf("second stream does not reopen the code block:\n%s", second.Content)
	}
	var all strings.Builder
	for _, fr := range frames {
		all.WriteString(c.Body()[fr.BodyStart:fr.BodyEnd])
	}
	if all.String() != code {
		t.Fatal("streams do not deliver the body exactly once")
	}
}
