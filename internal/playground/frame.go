package playground

import (
	"regexp"
	"strings"
)

// States a card is in, as the page styles them.
const (
	StateSending   = "sending"
	StateQueued    = "queued"
	StateRunning   = "running"
	StateWaiting   = "waiting"
	StateDone      = "done"
	StateCancelled = "cancelled"
	StateFailed    = "failed"
)

// Frame text the bot and the cards package write, matched to derive a card's
// status the way a user reading the card would. They mirror cards' stream
// renderer (status lines, continuation marker) and bot's texts; a mismatch
// only makes the status read "running"/"done" instead of the finer one.
const (
	thinkOpen         = "<think>"
	thinkClose        = "</think>"
	escapedThinkClose = `<\/think>`
	continuedMarker   = "_(continued in the next message)_"
	windowClosedNote  = "_(this reply is taking long: the rest of the answer follows in a separate message)_"
	thinkingHolder    = "⏳ Thinking…"
)

var (
	queuedLine  = regexp.MustCompile(`^⏳ Queued(?: \(position (\d+)\))?`)
	stoppedLine = regexp.MustCompile(`^_Stopped: (.*)_$`)
)

// splitThink separates a frame's leading <think> block (the progress
// section, which WeCom's client folds) from the rest (the body). A frame
// without one is all body.
func splitThink(content string) (progress, rest string) {
	trimmed := strings.TrimLeft(content, " \t\r\n")
	if !strings.HasPrefix(trimmed, thinkOpen) {
		return "", content
	}
	inner := trimmed[len(thinkOpen):]
	end := strings.Index(inner, thinkClose)
	if end < 0 {
		// A block still being written: everything so far is progress.
		return unescapeThink(inner), ""
	}
	return unescapeThink(inner[:end]), strings.TrimLeft(inner[end+len(thinkClose):], "\r\n")
}

// unescapeThink undoes how cards keeps progress text from closing the block.
func unescapeThink(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, escapedThinkClose, thinkClose))
}

// statusOf reads a frame body's status line. finish is the frame's flag (or
// true for a response_url message, which is complete when it arrives). It
// returns the state, the status text shown on the card (a finished turn's
// ends in "done"), and the body without a status line the status shows.
func statusOf(body string, finish bool) (state, text, rest string) {
	body = strings.TrimRight(body, " \t\r\n")
	if strings.TrimSpace(body) == thinkingHolder {
		return StateRunning, "running", ""
	}
	head, last := "", body
	if i := strings.LastIndex(body, "\n\n"); i >= 0 {
		head, last = body[:i], strings.TrimSpace(body[i+2:])
	}
	switch {
	case queuedLine.MatchString(last):
		m := queuedLine.FindStringSubmatch(last)
		text = "queued"
		if m[1] != "" {
			text = "queued (position " + m[1] + ")"
		}
		return StateQueued, text, head
	case strings.HasPrefix(last, "⏸ Waiting for approval"):
		return StateWaiting, "waiting for approval", body
	case last == "⏹ Cancelled":
		return StateCancelled, "cancelled", head
	case strings.HasPrefix(last, "❌ Failed"):
		text = "failed"
		if d := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(last, "❌ Failed"), ":")); d != "" {
			text = "failed: " + d
		}
		return StateFailed, text, head
	case stoppedLine.MatchString(last):
		return StateDone, "stopped by " + stoppedLine.FindStringSubmatch(last)[1] + ", done", head
	case last == continuedMarker || strings.HasSuffix(last, windowClosedNote):
		// The stream ended early; the rest comes through response_url.
		return StateRunning, "running (continues in a separate message)", body
	case finish:
		return StateDone, "done", body
	}
	return StateRunning, "running", body
}
