package cards

import "testing"

func TestContinueFromStartsAtAWord(t *testing.T) {
	for _, c := range []struct {
		body  string
		shown int
		want  string // body[ContinueFrom:]
	}{
		{"ECHO[window-msg-0123]", 6, "ECHO[window-msg-0123]"}, // one word: all of it again
		{"Final answer: ECHO[window]", 16, "ECHO[window]"},
		{"Final answer: ECHO[window]", 14, "ECHO[window]"}, // at a boundary already
		{"Hello. More", 6, " More"},
		{"最终答案是这个", 6, "答案是这个"}, // each CJK character is a word
		{"short", 0, "short"},
		{"short", 5, ""},
	} {
		if got := c.body[ContinueFrom(c.body, c.shown):]; got != c.want {
			t.Errorf("ContinueFrom(%q, %d) continues with %q, want %q", c.body, c.shown, got, c.want)
		}
	}
}
