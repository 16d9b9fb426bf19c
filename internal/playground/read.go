package playground

import (
	"strconv"
	"strings"

	"github.com/wecodex/wecodex/cards"
)

// frameView is a stream frame read back into its parts.
type frameView struct {
	// Progress is the <think> section's text, as the card wrote it before
	// keeping it from closing the block.
	Progress string
	// Body is the rest without the status line.
	Body string
	// Status is what the status line says; without one it is running (a
	// finished frame of a done turn has none: the caller knows finish).
	Status cards.Status
	// Line is the status line as the frame shows it ("" without one).
	Line string
	// Continues: the frame ends the stream early and the answer goes on in
	// another message (a roll-over, or a closed reply window).
	Continues bool
	// Queued is the 1-based queue position of a message waiting behind
	// others (the reply cards.QueuedLine writes); 0 otherwise.
	Queued int
}

// readStream reads a frame rendered by cards.Card.Stream, or written by
// another writer with cards' words, back into a frameView, as WeCom's client
// would show it. It fails safe: text it does not know is body.
func readStream(content string) frameView {
	progress, rest := splitThink(content)
	v := frameView{Progress: progress}
	rest = strings.TrimRight(rest, " \t\r\n")
	switch line := strings.TrimSpace(rest); {
	case line == cards.ThinkingLine:
		return v
	case strings.HasPrefix(line, cards.QueuedOpen) && strings.HasSuffix(line, cards.QueuedClose):
		if n, err := strconv.Atoi(line[len(cards.QueuedOpen) : len(line)-len(cards.QueuedClose)]); err == nil && n > 0 {
			v.Queued = n
			return v
		}
	}
	head, last := "", rest
	if i := strings.LastIndex(rest, cards.FrameGap); i >= 0 {
		head, last = rest[:i], strings.TrimSpace(rest[i+len(cards.FrameGap):])
	}
	if s, ok := readStatusLine(last); ok {
		v.Status, v.Line, v.Body = s, last, head
		return v
	}
	v.Body = rest
	v.Continues = last == cards.ContinuedMarker || strings.HasSuffix(last, cards.WindowClosedNote)
	return v
}

// splitThink separates a leading <think> block from the rest; a block still
// being written is all progress.
func splitThink(content string) (progress, rest string) {
	trimmed := strings.TrimLeft(content, " \t\r\n")
	if !strings.HasPrefix(trimmed, cards.ThinkOpen) {
		return "", content
	}
	inner := trimmed[len(cards.ThinkOpen):]
	end := strings.Index(inner, cards.ThinkEnd)
	if end < 0 {
		return unescapeThink(inner), ""
	}
	return unescapeThink(inner[:end]), strings.TrimLeft(inner[end+len(cards.ThinkEnd):], "\r\n")
}

func unescapeThink(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, cards.EscapedThinkEnd, cards.ThinkEnd))
}

// readStatusLine is the inverse of cards.StatusLine.
func readStatusLine(line string) (cards.Status, bool) {
	switch {
	case strings.HasPrefix(line, cards.WaitingLead):
		return cards.WaitingApproval(strings.TrimPrefix(line[len(cards.WaitingLead):], cards.DetailSep)), true
	case line == cards.CancelledLine:
		return cards.Status{State: cards.StateCancelled}, true
	case strings.HasPrefix(line, cards.FailedLead):
		return cards.Status{State: cards.StateFailed, Detail: strings.TrimPrefix(line[len(cards.FailedLead):], cards.DetailSep)}, true
	case strings.HasPrefix(line, cards.StoppedOpen) && strings.HasSuffix(line, cards.StoppedClose) && len(line) > len(cards.StoppedOpen)+len(cards.StoppedClose):
		return cards.Status{State: cards.StateDone, Detail: line[len(cards.StoppedOpen) : len(line)-len(cards.StoppedClose)]}, true
	}
	return cards.Status{}, false
}
