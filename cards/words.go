package cards

import "strconv"

// The words of a stream frame. Card.Stream, StatusLine and QueuedLine write
// them, and so do other writers of frames (bot's placeholder and queue
// position, the webhook channel's early end); a reader that types a frame
// back (the playground, playing WeCom's client) takes them from here, so the
// writers and the reader cannot drift apart.
const (
	// ThinkingLine is the whole frame of a message whose turn has not
	// started yet.
	ThinkingLine = "⏳ Thinking…"
	// WindowClosedNote ends a stream cut short before the turn finished;
	// the answer continues in a message of its own.
	WindowClosedNote = "_(this reply is taking long: the rest of the answer follows in a separate message)_"
	// ContinuedMarker ends a frame whose body rolled over: the answer goes
	// on in the next message.
	ContinuedMarker = "_(continued in the next message)_"

	// ThinkOpen and ThinkEnd wrap the progress section in ProgressThink
	// style; progress text that holds ThinkEnd shows EscapedThinkEnd
	// instead, so it cannot close the block early.
	ThinkOpen       = "<think>"
	ThinkEnd        = "</think>"
	EscapedThinkEnd = `<\/think>`
	// FrameGap separates a frame's parts: progress, body, status line.
	FrameGap = "\n\n"

	// QueuedOpen and QueuedClose frame the position in QueuedLine.
	QueuedOpen  = "⏳ Queued (position "
	QueuedClose = ") — waiting for the running turn to finish."

	// The status lines (see StatusLine): a lead, then DetailSep and the
	// detail when there is one; a stop reason between StoppedOpen and
	// StoppedClose.
	WaitingLead   = "⏸ Waiting for approval"
	CancelledLine = "⏹ Cancelled"
	FailedLead    = "❌ Failed"
	StoppedOpen   = "_Stopped: "
	StoppedClose  = "_"
	DetailSep     = ": "
)

// QueuedLine is the whole reply of a message waiting behind others, at a
// 1-based queue position. It is no card (a waiting message has none yet);
// the engine shows it.
func QueuedLine(position int) string {
	return QueuedOpen + strconv.Itoa(position) + QueuedClose
}

// StatusLine is the status line a frame of a card with status s ends with
// ("" while running, and for a turn that ended by end_turn).
func StatusLine(s Status) string {
	switch s.State {
	case StateWaitingApproval:
		if d := OneLine(s.Detail); d != "" {
			return WaitingLead + DetailSep + truncateRunes(d, 200)
		}
		return WaitingLead
	case StateDone:
		if s.Detail != "" {
			return StoppedOpen + truncateRunes(OneLine(s.Detail), 100) + StoppedClose
		}
	case StateCancelled:
		return CancelledLine
	case StateFailed:
		if d := OneLine(s.Detail); d != "" {
			return FailedLead + DetailSep + truncateRunes(d, 500)
		}
		return FailedLead
	}
	return ""
}
