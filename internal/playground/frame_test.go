package playground

import (
	"testing"

	"github.com/wecodex/wecodex/cards"
)

func TestSplitThink(t *testing.T) {
	tests := []struct {
		name, content, progress, rest string
	}{
		{"no think block", "Sorry, you are not allowed.", "", "Sorry, you are not allowed."},
		{"placeholder", "<think>\n⏳ Working…\n</think>\n\n", "⏳ Working…", ""},
		{"progress and body", "<think>\nI will inspect.\n\n✅ Run ls\n</think>\n\nThe answer.", "I will inspect.\n\n✅ Run ls", "The answer."},
		{"escaped close inside", "<think>\nLooking into <think>tags<\\/think> and more.\n</think>\n\nBody", "Looking into <think>tags</think> and more.", "Body"},
		{"unclosed", "<think>\npartial", "partial", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, r := splitThink(tt.content)
			if p != tt.progress || r != tt.rest {
				t.Fatalf("splitThink(%q) = %q, %q; want %q, %q", tt.content, p, r, tt.progress, tt.rest)
			}
		})
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		finish bool
		state  string
		text   string
		rest   string
	}{
		{"thinking holder", "⏳ Thinking…", false, StateRunning, "running", ""},
		{"running body", "The workspace holds", false, StateRunning, "running", "The workspace holds"},
		{"done", "The answer.", true, StateDone, "done", "The answer."},
		{"queued", "⏳ Queued (position 2) — waiting for the running turn to finish.", false, StateQueued, "queued (position 2)", ""},
		{"queued by cards", "⏳ Queued (position 1)", false, StateQueued, "queued (position 1)", ""},
		{"cancelled", "```sh\nmake lint\n```\n\n⏹ Cancelled", true, StateCancelled, "cancelled", "```sh\nmake lint\n```"},
		{"cancelled alone", "⏹ Cancelled", true, StateCancelled, "cancelled", ""},
		{"failed", "Partial answer before the failure.\n\n❌ Failed: turn failed: stream disconnected before completion", true,
			StateFailed, "failed: turn failed: stream disconnected before completion", "Partial answer before the failure."},
		{"stopped", "Half an answer\n\n_Stopped: max_tokens_", true, StateDone, "stopped by max_tokens, done", "Half an answer"},
		{"rolled over", "Part one\n\n_(continued in the next message)_", true, StateRunning, "running (continues in a separate message)", "Part one\n\n_(continued in the next message)_"},
		{"waiting", "⏸ Waiting for approval: run rm", false, StateWaiting, "waiting for approval", "⏸ Waiting for approval: run rm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, text, rest := statusOf(tt.body, tt.finish)
			if state != tt.state || text != tt.text || rest != tt.rest {
				t.Fatalf("statusOf(%q, %v) = %q, %q, %q; want %q, %q, %q", tt.body, tt.finish, state, text, rest, tt.state, tt.text, tt.rest)
			}
		})
	}
}

func TestMarkdownEscapesRawHTML(t *testing.T) {
	got := cards.NewHTMLRenderer().Markdown("Use <b>bold</b> and `code`.\n\n<script>alert(1)</script>\n")
	want := "<p>Use &lt;b&gt;bold&lt;/b&gt; and <code>code</code>.</p>\n<pre class=\"raw-html\">&lt;script&gt;alert(1)&lt;/script&gt;\n</pre>\n"
	if got != want {
		t.Fatalf("HTML =\n%q\nwant\n%q", got, want)
	}
}

func TestMarkdownTableAlignWithoutInlineStyle(t *testing.T) {
	got := cards.NewHTMLRenderer().Markdown("| a | b |\n|:--|--:|\n| 1 | 2 |\n")
	want := "<table>\n<thead>\n<tr>\n<th align=\"left\">a</th>\n<th align=\"right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td align=\"left\">1</td>\n<td align=\"right\">2</td>\n</tr>\n</tbody>\n</table>\n"
	if got != want {
		t.Fatalf("HTML =\n%q\nwant\n%q", got, want)
	}
}
