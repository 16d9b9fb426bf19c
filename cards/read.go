package cards

import (
	"strconv"
	"strings"
)

// What a stream frame says that a reader of it (the playground, playing
// WeCom's client) needs typed. The renderer and ReadStream share these, so
// the two cannot drift apart; other writers of frames (bot's placeholder
// and queue position, the webhook channel's early end) take them from here.
const (
	// ThinkingLine is the whole frame of a message whose turn has not
	// started yet.
	ThinkingLine = "⏳ Thinking…"
	// WindowClosedNote ends a stream cut short before the turn finished;
	// the answer continues in a message of its own.
	WindowClosedNote = "_(this reply is taking long: the rest of the answer follows in a separate message)_"

	queuedOpen    = "⏳ Queued (position "
	queuedClose   = ") — waiting for the running turn to finish."
	waitingLead   = "⏸ Waiting for approval"
	cancelledLine = "⏹ Cancelled"
	failedLead    = "❌ Failed"
	stoppedOpen   = "_Stopped: "
	stoppedClose  = "_"
	detailSep     = ": "
)

// StreamView is a stream frame read back into its parts.
type StreamView struct {
	// Progress is the <think> section's text, as the card wrote it before
	// keeping it from closing the block.
	Progress string
	// Body is the rest without the status line.
	Body string
	// Status is what the status line says; without one it is running (a
	// finished frame of a done turn has none: the caller knows finish).
	Status Status
	// Line is the status line as the frame shows it ("" without one).
	Line string
	// Continues: the frame ends the stream early and the answer goes on in
	// another message (a roll-over, or a closed reply window).
	Continues bool
	// Queued is the 1-based queue position of a message waiting behind
	// others (the reply QueuedLine writes); 0 otherwise.
	Queued int
}

// QueuedLine is the whole reply of a message waiting behind others, at a
// 1-based queue position. It is no card (a waiting message has none yet);
// the engine shows it, and ReadStream reads it.
func QueuedLine(position int) string {
	return queuedOpen + strconv.Itoa(position) + queuedClose
}

// ReadStream reads a frame rendered by Card.Stream, or written by another
// writer with this package's lines, back into a StreamView. It fails safe:
// text it does not know is body.
func ReadStream(content string) StreamView {
	progress, rest := splitThink(content)
	v := StreamView{Progress: progress}
	rest = strings.TrimRight(rest, " \t\r\n")
	switch line := strings.TrimSpace(rest); {
	case line == ThinkingLine:
		return v
	case strings.HasPrefix(line, queuedOpen) && strings.HasSuffix(line, queuedClose):
		if n, err := strconv.Atoi(line[len(queuedOpen) : len(line)-len(queuedClose)]); err == nil && n > 0 {
			v.Queued = n
			return v
		}
	}
	head, last := "", rest
	if i := strings.LastIndex(rest, quoteGap); i >= 0 {
		head, last = rest[:i], strings.TrimSpace(rest[i+len(quoteGap):])
	}
	if s, ok := readStatusLine(last); ok {
		v.Status, v.Line, v.Body = s, last, head
		return v
	}
	v.Body = rest
	v.Continues = last == continuedMarker || strings.HasSuffix(last, WindowClosedNote)
	return v
}

// splitThink separates a leading <think> block from the rest; a block still
// being written is all progress.
func splitThink(content string) (progress, rest string) {
	trimmed := strings.TrimLeft(content, " \t\r\n")
	open := strings.TrimSuffix(thinkOpen, "\n")
	if !strings.HasPrefix(trimmed, open) {
		return "", content
	}
	inner := trimmed[len(open):]
	end := strings.Index(inner, thinkEnd)
	if end < 0 {
		return unescapeThink(inner), ""
	}
	return unescapeThink(inner[:end]), strings.TrimLeft(inner[end+len(thinkEnd):], "\r\n")
}

func unescapeThink(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, escapedThinkEnd, thinkEnd))
}

// readStatusLine is the inverse of StatusLine.
func readStatusLine(line string) (Status, bool) {
	switch {
	case strings.HasPrefix(line, waitingLead):
		return WaitingApproval(strings.TrimPrefix(line[len(waitingLead):], detailSep)), true
	case line == cancelledLine:
		return Status{State: StateCancelled}, true
	case strings.HasPrefix(line, failedLead):
		return Status{State: StateFailed, Detail: strings.TrimPrefix(line[len(failedLead):], detailSep)}, true
	case strings.HasPrefix(line, stoppedOpen) && strings.HasSuffix(line, stoppedClose) && len(line) > len(stoppedOpen)+len(stoppedClose):
		return Status{State: StateDone, Detail: line[len(stoppedOpen) : len(line)-len(stoppedClose)]}, true
	}
	return Status{}, false
}

// StatusLine is the status line a frame of a card with status s ends with
// ("" while running, and for a turn that ended by end_turn).
func StatusLine(s Status) string {
	switch s.State {
	case StateWaitingApproval:
		if d := oneLine(s.Detail); d != "" {
			return waitingLead + detailSep + truncateRunes(d, 200)
		}
		return waitingLead
	case StateDone:
		if s.Detail != "" {
			return stoppedOpen + truncateRunes(oneLine(s.Detail), 100) + stoppedClose
		}
	case StateCancelled:
		return cancelledLine
	case StateFailed:
		if d := oneLine(s.Detail); d != "" {
			return failedLead + detailSep + truncateRunes(d, 500)
		}
		return failedLead
	}
	return ""
}
