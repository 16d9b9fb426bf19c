package cards

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentenceCut is the end of the last sentence in text[lo:hi]: after a
// sentence mark followed by a space or line end, or after a CJK full stop,
// question or exclamation mark (which need no space). 0 when there is none.
func sentenceCut(text string, lo, hi int) int {
	for i := hi; i > lo; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		switch r {
		case '。', '！', '？', '；':
			return i
		case ' ', '\n', '\t':
			if j := i - size; j > lo {
				if p, _ := utf8.DecodeLastRuneInString(text[:j]); p == '.' || p == '!' || p == '?' || p == ';' || p == ':' {
					return i
				}
			}
		}
		i -= size
	}
	return 0
}

// wordCut is the last word boundary in text[lo:hi]: after a space, or
// before or after a CJK character (each is a word of its own). 0 when
// there is none: text[lo:hi] is one part of a single word.
func wordCut(text string, lo, hi int) int {
	for i := hi; i > lo; {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if unicode.IsSpace(r) || isCJK(r) {
			return i
		}
		if i < len(text) {
			if next, _ := utf8.DecodeRuneInString(text[i:]); isCJK(next) || unicode.IsSpace(next) {
				return i
			}
		}
		i -= size
	}
	return 0
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef)
}

// wordStart is the start of the word off falls in (off itself at a word
// boundary).
func wordStart(text string, off int) int {
	if off <= 0 || off > len(text) {
		return off
	}
	if c := wordCut(text, 0, off); c > 0 {
		return c
	}
	return 0
}

// endCut is where a stream that must end now (its window closed while the
// turn runs) stops showing text[from:end]: after the last paragraph, line
// or sentence, else the last word; never inside a word unless the text from
// from on is one word. Text an earlier frame showed (up to shown) stays,
// except the part of a word it showed, which is taken back.
func endCut(text string, from, shown, end int, fences *fenceTracker) int {
	if end >= len(text) && (end == 0 || strings.HasSuffix(text, "\n")) {
		return end
	}
	floor := max(from, wordStart(text, min(shown, end)))
	inside := func(off int) bool { _, in := fences.at(off); return in }
	for _, sep := range []string{"\n\n", "\n"} {
		for hi := end; hi > floor; {
			i := strings.LastIndex(text[floor:hi], sep)
			if i < 0 {
				break
			}
			if c := floor + i + len(sep); !inside(c) {
				return c
			}
			hi = floor + i + len(sep) - 1
		}
	}
	if c := sentenceCut(text, floor, end); c > floor {
		return c
	}
	if c := wordCut(text, floor, end); c > floor {
		return c
	}
	if floor > from {
		return floor
	}
	return end
}

// StreamEnd is the frame that ends a stream early (its platform window
// closed while the turn runs): like Stream(from, shown), but the body stops
// at a paragraph, sentence or at least a word boundary, so no word is cut in
// two; the part of a word an earlier frame showed may be taken back. The
// caller continues the answer from BodyEnd (Continuation).
func (c *Card) StreamEnd(from, shown int) StreamFrame {
	fr := c.Stream(from, shown)
	body := c.Body()
	if fr.MustFinish || fr.BodyEnd != len(body) {
		return fr
	}
	cut := endCut(body, from, shown, fr.BodyEnd, &c.bodyFences)
	if cut >= fr.BodyEnd || cut <= from {
		return fr
	}
	k := c.cutCopy(cut)
	out := k.Stream(from, min(shown, cut))
	out.MustFinish = false
	return out
}

// cutCopy is c with its body ending at end: same progress and status.
func (c *Card) cutCopy(end int) *Card {
	k := *c
	k.body = strings.Builder{}
	k.body.WriteString(c.body.String()[:end])
	k.bodyFences = fenceTracker{}
	k.bodyFences.feed(k.body.String(), 0)
	return &k
}

// ContinueFrom is where a message continuing body starts when a stream
// that can no longer be corrected (its platform expired it) showed
// body[:shown]: at the start of the word shown falls in, so the
// continuation opens with a whole word, repeating the part of it the
// stream showed; shown itself when it is at a word boundary.
func ContinueFrom(body string, shown int) int {
	if shown <= 0 || shown >= len(body) {
		return shown
	}
	return wordStart(body, shown)
}

// ContinuationLead opens a message that continues a card's answer after its
// stream ended.
const ContinuationLead = "_(continued from the card above)_"

// Continuation is the message that carries the card's answer from byte
// offset from on, after its stream ended: marked as the continuation, the
// body's rest and the status line, with no progress section (a <think>
// block folds only inside a stream). MustFinish says the rest did not fit
// either; BodyEnd is where it stopped.
func (c *Card) Continuation(from int) StreamFrame {
	k := New(WithStreamLimit(c.streamLimit - len(ContinuationLead) - len(FrameGap)))
	k.appendBody("", c.Body())
	k.status = c.status
	fr := k.Stream(from, 0)
	fr.Content = ContinuationLead + FrameGap + fr.Content
	return fr
}
