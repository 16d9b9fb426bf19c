package cards

import "strings"

// minSplitBytes keeps a part large enough to hold a reopened code fence and
// some text.
const minSplitBytes = 2*maxDecoratedMarker + 16

// part is one piece of a split text: text[start:end] between an optional
// reopened fence and an optional closing fence.
type part struct {
	start, end     int
	reopen, suffix string
}

// SplitMarkdown cuts markdown into parts of at most maxBytes bytes each,
// preferring to cut between paragraphs, then between lines, never inside a
// UTF-8 sequence. A part never ends inside an open code block: when a block
// must be split, the part closes it and the next part reopens it with the
// same fence and info string. Concatenating the parts without those added
// fences gives text back exactly. A maxBytes below a small minimum is raised
// to it.
func SplitMarkdown(text string, maxBytes int) []string {
	parts := splitParts(text, maxBytes)
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.reopen + text[p.start:p.end] + p.suffix
	}
	return out
}

func splitParts(text string, maxBytes int) []part {
	maxBytes = max(maxBytes, minSplitBytes)
	if text == "" {
		return nil
	}
	fences := scanFences(text)
	var parts []part
	for start := 0; start < len(text); {
		var reopen string
		if start > 0 {
			if sp, in := fences.at(start); in && decoratable(sp) {
				reopen = reopenFence(sp)
			}
		}
		if len(reopen)+len(text)-start <= maxBytes {
			parts = append(parts, part{start: start, end: len(text), reopen: reopen})
			break
		}
		room := maxBytes - len(reopen) - (maxDecoratedMarker + 1)
		end := bestCut(text, start, 0, start+room, fences)
		var suffix string
		if sp, in := fences.at(end); in && decoratable(sp) {
			suffix = closeFence(sp, strings.HasSuffix(text[:end], "\n"))
		}
		parts = append(parts, part{start: start, end: end, reopen: reopen, suffix: suffix})
		start = end
	}
	return parts
}
