package cards

import (
	"sort"
	"strings"
)

// fenceSpan is one fenced code block of a markdown text, by byte offsets.
type fenceSpan struct {
	inner  int    // just after the opening line's newline
	end    int    // start of the closing line; -1 while the block is open
	marker string // the opening run of backticks or tildes, e.g. "```"
	info   string // the info string after the marker, e.g. "go"
}

// fenceTracker finds fenced code blocks in a text that only grows. It looks
// at each line once, when its newline arrives, so feeding a delta costs the
// delta (plus the rest of the line it completes), never the text before.
type fenceTracker struct {
	lineStart int
	spans     []fenceSpan
}

// feed processes all[from:], the bytes appended since the last call.
func (t *fenceTracker) feed(all string, from int) {
	for {
		i := strings.IndexByte(all[from:], '\n')
		if i < 0 {
			return
		}
		nl := from + i
		t.line(all[t.lineStart:nl], t.lineStart, nl+1)
		t.lineStart = nl + 1
		from = nl + 1
	}
}

func (t *fenceTracker) open() *fenceSpan {
	if n := len(t.spans); n > 0 && t.spans[n-1].end < 0 {
		return &t.spans[n-1]
	}
	return nil
}

func (t *fenceTracker) line(line string, start, next int) {
	if sp := t.open(); sp != nil {
		if isFenceCloser(line, sp.marker) {
			sp.end = start
		}
		return
	}
	if marker, info, ok := fenceOpener(line); ok {
		t.spans = append(t.spans, fenceSpan{inner: next, end: -1, marker: marker, info: info})
	}
}

// at reports the fenced block a cut at off would fall inside: the text
// before off opens it and does not close it.
func (t *fenceTracker) at(off int) (fenceSpan, bool) {
	// The last span whose inside starts at or before off.
	i := sort.Search(len(t.spans), func(i int) bool { return t.spans[i].inner > off }) - 1
	if i < 0 {
		return fenceSpan{}, false
	}
	sp := t.spans[i]
	if sp.end < 0 || off <= sp.end {
		return sp, true
	}
	return fenceSpan{}, false
}

// scanFences finds every fenced block of a whole text.
func scanFences(text string) *fenceTracker {
	t := &fenceTracker{}
	t.feed(text, 0)
	return t
}

// fenceOpener recognises a CommonMark fence opening line: up to three spaces,
// then at least three backticks or tildes, then an info string (which, for
// backticks, may not contain a backtick).
func fenceOpener(line string) (marker, info string, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	rest, ok := trimIndent(line)
	if !ok || len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return "", "", false
	}
	n := runLen(rest, rest[0])
	if n < 3 {
		return "", "", false
	}
	info = strings.TrimSpace(rest[n:])
	if rest[0] == '`' && strings.IndexByte(info, '`') >= 0 {
		return "", "", false
	}
	return rest[:n], info, true
}

// isFenceCloser reports whether line closes a block opened with marker.
func isFenceCloser(line, marker string) bool {
	line = strings.TrimSuffix(line, "\r")
	rest, ok := trimIndent(line)
	if !ok || rest == "" || rest[0] != marker[0] {
		return false
	}
	n := runLen(rest, rest[0])
	return n >= len(marker) && strings.TrimSpace(rest[n:]) == ""
}

func trimIndent(line string) (string, bool) {
	i := 0
	for i < len(line) && i < 4 && line[i] == ' ' {
		i++
	}
	if i > 3 {
		return "", false
	}
	return line[i:], true
}

func runLen(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// maxDecoratedMarker bounds the fence markers and info strings the renderers
// repeat when they close a block at a cut and reopen it in the next part; a
// longer one (only a pathological text has it) is left as it is.
const maxDecoratedMarker = 64

func decoratable(sp fenceSpan) bool {
	return len(sp.marker)+len(sp.info) <= maxDecoratedMarker
}

// reopenFence is what starts the next part when a cut fell inside sp.
func reopenFence(sp fenceSpan) string {
	switch {
	case sp.info == "":
		return sp.marker + "\n"
	case sp.info[0] == sp.marker[0]:
		// "~~~" + "~x" would read as a longer fence: keep them apart.
		return sp.marker + " " + sp.info + "\n"
	}
	return sp.marker + sp.info + "\n"
}

// closeFence is what ends a part cut inside sp; prev is the part's last byte.
func closeFence(sp fenceSpan, endsWithNewline bool) string {
	if endsWithNewline {
		return sp.marker
	}
	return "\n" + sp.marker
}
