package cards

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitMarkdown(t *testing.T) {
	para := func(c string, n int) string { return strings.Repeat(c, n) }
	tests := []struct {
		name string
		text string
		max  int
		want []string
	}{
		{name: "empty", text: "", max: 200, want: nil},
		{name: "fits", text: "hello\n\nworld", max: 200, want: []string{"hello\n\nworld"}},
		{
			name: "paragraph boundary preferred",
			text: para("a", 100) + "\n\n" + para("b", 60) + "\n" + para("c", 60),
			max:  200,
			want: []string{para("a", 100) + "\n\n", para("b", 60) + "\n" + para("c", 60)},
		},
		{
			name: "line boundary when no paragraph",
			text: para("a", 120) + "\n" + para("b", 120),
			max:  200,
			want: []string{para("a", 120) + "\n", para("b", 120)},
		},
		{
			name: "paragraph outside a code block wins over one inside",
			text: "intro " + para("i", 60) + "\n\n```go\n" + para("x", 40) + "\n\n" + para("y", 40) + "\n```\n" + para("z", 100),
			max:  200,
			want: []string{
				"intro " + para("i", 60) + "\n\n",
				"```go\n" + para("x", 40) + "\n\n" + para("y", 40) + "\n```\n" + para("z", 100),
			},
		},
		{
			name: "code block split is closed and reopened with its info string",
			text: "```python\n" + strings.Repeat("print(1)\n", 40) + "```\nend",
			max:  200,
			want: []string{
				"```python\n" + strings.Repeat("print(1)\n", 13) + "```",
				"```python\n" + strings.Repeat("print(1)\n", 13) + "```",
				"```python\n" + strings.Repeat("print(1)\n", 14) + "```\nend",
			},
		},
		{
			name: "tilde fence with longer marker",
			text: "~~~~ sh\n" + strings.Repeat("echo hi\n", 40) + "~~~~\n",
			max:  200,
			want: []string{
				"~~~~ sh\n" + strings.Repeat("echo hi\n", 15) + "~~~~",
				"~~~~sh\n" + strings.Repeat("echo hi\n", 16) + "~~~~",
				"~~~~sh\n" + strings.Repeat("echo hi\n", 9) + "~~~~\n",
			},
		},
		{
			name: "long line cut at a rune boundary",
			text: strings.Repeat("中", 100),
			max:  160,
			want: []string{strings.Repeat("中", 31), strings.Repeat("中", 31), strings.Repeat("中", 38)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitMarkdown(tt.text, tt.max)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d parts %q, want %d %q", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("part %d:\n got %q\nwant %q", i, got[i], tt.want[i])
				}
			}
			checkParts(t, tt.text, tt.max)
		})
	}
}

// checkParts asserts the splitter's promises for any text: every part within
// the cap and valid UTF-8, no part ending inside a code block it opened or
// reopened, and the parts without added fences giving the text back.
func checkParts(t *testing.T, text string, maxBytes int) {
	t.Helper()
	parts := splitParts(text, maxBytes)
	limit := max(maxBytes, minSplitBytes)
	var joined strings.Builder
	for i, p := range parts {
		s := p.reopen + text[p.start:p.end] + p.suffix
		if len(s) > limit {
			t.Fatalf("part %d has %d bytes, cap %d", i, len(s), limit)
		}
		if utf8.ValidString(text) && !utf8.ValidString(s) {
			t.Fatalf("part %d is not valid UTF-8: %q", i, s)
		}
		if p.end <= p.start {
			t.Fatalf("part %d is empty", i)
		}
		if i < len(parts)-1 {
			// Only the last part may leave a block open (when the text
			// itself does), or a block whose fence is too long to repeat.
			if sp := scanFences(s + "\n").open(); sp != nil && decoratable(*sp) {
				t.Fatalf("part %d ends inside a code block: %q", i, s)
			}
		}
		joined.WriteString(text[p.start:p.end])
	}
	if joined.String() != text {
		t.Fatalf("parts do not give the text back")
	}
}
