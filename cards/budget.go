package cards

import (
	"strings"
	"unicode/utf8"
)

// runeFloor moves off back to the start of the rune it falls in, so a cut at
// the result never splits a UTF-8 sequence.
func runeFloor(s string, off int) int {
	if off >= len(s) {
		return len(s)
	}
	for i := 0; i < utf8.UTFMax && off > 0 && !utf8.RuneStart(s[off]); i++ {
		off--
	}
	return off
}

// bestCut picks where a part of text that starts at start and may run to at
// most limit (< len(text)) should end. In order of preference: after a blank
// line outside any code block, after a line outside any code block, after any
// line, and at last at a rune boundary. A boundary is only taken if it keeps
// at least half the room, so a part is never needlessly short, and if it is
// not before floor (text already shown that must not be taken back; floor <=
// limit). The result is always > start when limit-start >= utf8.UTFMax.
func bestCut(text string, start, floor, limit int, fences *fenceTracker) int {
	minEnd := max(start+(limit-start)/2, min(floor, limit)-1)
	window := text[:limit]
	inside := func(off int) bool {
		_, in := fences.at(off)
		return in
	}
	// Paragraph boundaries outside code blocks.
	for hi := limit; ; {
		i := strings.LastIndex(window[:hi], "\n\n")
		if i < 0 || i+2 <= minEnd || i < start {
			break
		}
		if !inside(i + 2) {
			return i + 2
		}
		hi = i + 1
	}
	// Line boundaries outside code blocks.
	for hi := limit; ; {
		i := strings.LastIndexByte(window[:hi], '\n')
		if i < 0 || i+1 <= minEnd || i < start {
			break
		}
		if !inside(i + 1) {
			return i + 1
		}
		hi = i
	}
	// Any line boundary; the caller closes and reopens the code block.
	if i := strings.LastIndexByte(window[start:], '\n'); i >= 0 && start+i+1 > minEnd {
		return start + i + 1
	}
	end := runeFloor(text, limit)
	if end <= start {
		// Only a text that is not valid UTF-8 gets here; cut at the byte.
		end = limit
	}
	return end
}

// truncateRunes shortens s to at most n runes, ending in "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}

// tailBytes keeps the end of s within max bytes, cut at a line start when
// that keeps at least half, else at a rune start.
func tailBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	from := len(s) - max
	if i := strings.IndexByte(s[from:], '\n'); i >= 0 && i < max/2 {
		return s[from+i+1:]
	}
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return s[from:]
}

// OneLine folds a text onto one line for a title, a card field or a list
// entry: every run of white space, line breaks included, becomes one space.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}

// toValidUTF8 replaces invalid sequences so a frame is always valid UTF-8,
// even when an agent sent broken text.
func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// truncateBytes shortens s to at most max bytes at a rune boundary, ending in
// "…" when cut.
func truncateBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ell = "…"
	if max < len(ell) {
		return ""
	}
	return s[:runeFloor(s, max-len(ell))] + ell
}
