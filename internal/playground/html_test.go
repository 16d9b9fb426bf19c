package playground

import (
	"strings"
	"testing"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/cardstest"
)

// TestHTMLGolden renders the recorded turns as the page shows a card.
func TestHTMLGolden(t *testing.T) {
	r := NewHTMLRenderer()
	for _, name := range cardstest.Scenarios {
		t.Run(name, func(t *testing.T) {
			cardstest.Golden(t, name+".html", r.Render(cardstest.Card(t, name, cards.WithTitle("Fix the parser test"))))
		})
	}
	t.Run("long", func(t *testing.T) {
		cardstest.Golden(t, "long.html", r.Render(cardstest.LongCard(cards.WithTitle("Explain the whole change in detail, with code"))))
	})
}

func TestHTMLEscapesRawHTML(t *testing.T) {
	c := cards.New()
	c.Apply(cardstest.Msg("a", "Hi <script>alert(1)</script> [x](javascript:alert(1))\n\n<div onclick=\"x()\">block</div>\n"))
	c.Notice("error", "<img src=x onerror=alert(1)>")
	h := NewHTMLRenderer().Render(c)
	for _, bad := range []string{"<script", "<div onclick", "<img", "javascript:"} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML contains %q:\n%s", bad, h)
		}
	}
	for _, want := range []string{
		`<p class="card-status" data-testid="status">running</p>`,
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		`<pre class="raw-html">&lt;div onclick=&#34;x()&#34;&gt;block&lt;/div&gt;`,
		`<p class="notice" data-level="error">&lt;img src=x onerror=alert(1)&gt;</p>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
}

func TestMarkdownEscapesRawHTML(t *testing.T) {
	got := NewHTMLRenderer().Markdown("Use <b>bold</b> and `code`.\n\n<script>alert(1)</script>\n")
	want := "<p>Use &lt;b&gt;bold&lt;/b&gt; and <code>code</code>.</p>\n<pre class=\"raw-html\">&lt;script&gt;alert(1)&lt;/script&gt;\n</pre>\n"
	if got != want {
		t.Fatalf("HTML =\n%q\nwant\n%q", got, want)
	}
}

func TestMarkdownTableAlignWithoutInlineStyle(t *testing.T) {
	got := NewHTMLRenderer().Markdown("| a | b |\n|:--|--:|\n| 1 | 2 |\n")
	want := "<table>\n<thead>\n<tr>\n<th align=\"left\">a</th>\n<th align=\"right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td align=\"left\">1</td>\n<td align=\"right\">2</td>\n</tr>\n</tbody>\n</table>\n"
	if got != want {
		t.Fatalf("HTML =\n%q\nwant\n%q", got, want)
	}
}

// FuzzHTML: whatever the agent writes, the card's HTML is valid UTF-8 and
// runs nothing.
func FuzzHTML(f *testing.F) {
	f.Add("Hi <script>alert(1)</script>", "<img src=x onerror=alert(1)>", "Run `ls`")
	f.Add("```go\nfunc main(){}\n", "\xff\xfe", "<SCRIPT>")
	f.Add("| a |\n|--|\n| <b>x</b> |", "中文", "</think>")
	f.Fuzz(func(t *testing.T, body, notice, tool string) {
		c := cards.New(cards.WithTitle(tool))
		c.Apply(cardstest.Thought("t", notice))
		c.Apply(acp.StartToolCall("call_1", tool, acp.WithStartStatus(acp.ToolCallStatusInProgress)))
		c.Apply(cardstest.Msg("a", body))
		c.Notice("error", notice)
		c.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))
		h := NewHTMLRenderer().Render(c)
		if !utf8.ValidString(h) || strings.Contains(strings.ToLower(h), "<script") {
			t.Fatalf("unsafe or invalid HTML: %q", h)
		}
	})
}

func BenchmarkHTML(b *testing.B) {
	c := cardstest.LongCard()
	r := NewHTMLRenderer()
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(r.Render(c))
	}
	b.ReportMetric(float64(n), "bytes/render")
}
