package cards

import (
	"math"
	"strings"
)

// noStreamLimit is the cap of a card made without WithStreamLimit: large
// enough that no frame is ever cut, small enough that sums of it never
// overflow.
const noStreamLimit = math.MaxInt32

// minStreamLimit keeps a configured cap large enough for the fixed parts of a
// frame plus some body.
const minStreamLimit = 512

// StreamFrame is the markdown of one stream frame (a message a platform shows
// whole and replaces with each newer frame, as WeCom's AI-bot stream does),
// and which part of the card's body it shows.
//
// A stream shows the body from the offset it started at (BodyStart). While
// everything fits, BodyEnd is len(Body()). When it does not, MustFinish is
// set: send this frame with finish=true, then continue the answer in a new
// message (a new stream, or a markdown POST to response_url) rendered with
// Stream(BodyEnd). Body()[BodyStart:BodyEnd] appears verbatim in Content, so
// the final frames of successive streams deliver every byte of the body
// exactly once.
type StreamFrame struct {
	Content    string
	BodyStart  int
	BodyEnd    int
	MustFinish bool
}

const (
	thinkOpen    = ThinkOpen + "\n"
	thinkClose   = "\n" + ThinkEnd + "\n\n"
	endOfAnswer  = "_(end of answer)_"
	noAnswer     = "_The agent finished without an answer._"
	promotedLead = "_No final answer. The agent's last commentary:_\n\n"
)

// minTail is the room a frame always keeps after its body segment: enough
// for the continuation marker and a fence that closes a cut code block.
const minTail = len(ContinuedMarker) + maxDecoratedMarker + 1

// progressReserve is the room a frame keeps for progress before it rolls the
// body over to a new message.
func progressReserve(limit int) int {
	return min(1024, limit/8)
}

// Stream renders the frame for a stream that shows the body from byte offset
// from (0 for the first stream of a turn; the previous stream's BodyEnd after
// a roll-over). shown is the BodyEnd of the frame this stream showed last (0
// for none): a roll-over never cuts before it, so a stream never takes back
// text its user has already seen. It is a pure function of the card.
func (c *Card) Stream(from, shown int) StreamFrame {
	limit := c.streamLimit
	body := c.Body()
	from = runeFloor(body, max(0, min(from, len(body))))
	fr := StreamFrame{BodyStart: from, BodyEnd: len(body)}
	shape := progressShape{quote: c.style == ProgressQuote, think: c.style != ProgressQuote}

	var reopen string
	if from > 0 {
		if sp, in := c.bodyFences.at(from); in && decoratable(sp) {
			reopen = reopenFence(sp)
		}
	}
	if from == 0 && c.header != "" {
		// Only the turn's first stream shows the header; reopen is empty
		// there, and its room is counted as reopen's.
		reopen = c.header + FrameGap
	}
	seg := body[from:]
	tail := c.streamTail(seg, limit)
	wrapper := len(thinkOpen) + len(thinkClose)
	if shape.quote {
		wrapper = len(FrameGap)
	}
	reserve := progressReserve(limit)

	// A status line after a body that ends inside a code block would land in
	// the block: close it first.
	var closing string
	if tail != "" {
		if sp := c.bodyFences.open(); sp != nil && sp.inner <= len(body) && decoratable(*sp) {
			closing = closeFence(*sp, strings.HasSuffix(body, "\n"))
		}
	}
	// The body fits when it leaves at least minTail for what follows it: the
	// same room a roll-over keeps, so a frame that fits never shows more body
	// than a roll-over cut of the same stream could keep.
	fixed := wrapper + reserve + len(reopen) + len(seg) + len(closing) + len(FrameGap)
	if fixed+len(tail) > limit && fixed+minTail <= limit {
		// The body fits but a long status or note does not: shorten that.
		tail = truncateBytes(tail, limit-fixed)
	}
	if fixed+max(len(tail), minTail) > limit {
		// The rest of the body does not fit: show as much as fits, cut at a
		// good boundary, and tell the caller to finish this stream.
		tail = ContinuedMarker
		closing = ""
		// minTail covers the marker and a closing fence, so room < len(seg).
		room := limit - wrapper - reserve - len(reopen) - len(FrameGap) - minTail
		end := bestCut(body, from, shown, from+room, &c.bodyFences)
		if sp, in := c.bodyFences.at(end); in && decoratable(sp) {
			closing = closeFence(sp, strings.HasSuffix(body[:end], "\n"))
		}
		seg = body[from:end]
		fr.BodyEnd = end
		fr.MustFinish = true
	}

	// The main part: reopened fence, body segment, closing fence, tail.
	mainLen := len(reopen) + len(seg) + len(closing)
	gap := ""
	if tail != "" && mainLen > 0 {
		gap = FrameGap
	}
	mainLen += len(gap) + len(tail)

	progress := c.progressWithin(limit-wrapper-mainLen, shape)
	if progress == "" && !c.status.Terminal() {
		progress = shape.dress(workingPlaceholder)
	}

	var b strings.Builder
	b.Grow(wrapper + len(progress) + mainLen)
	switch {
	case progress == "":
	case shape.quote:
		b.WriteString(progress)
		if mainLen > 0 {
			b.WriteString(FrameGap)
		}
	default:
		b.WriteString(thinkOpen)
		b.WriteString(progress)
		b.WriteString(thinkClose)
	}
	b.WriteString(reopen)
	b.WriteString(seg)
	b.WriteString(closing)
	b.WriteString(gap)
	b.WriteString(tail)
	fr.Content = b.String()
	return fr
}

// streamTail is what follows the body segment of a frame that reaches the
// end of the body: the status line, and for a finished turn whatever keeps
// the frame from showing no answer at all.
func (c *Card) streamTail(seg string, limit int) string {
	status := c.footed(c.statusMarkdown())
	if !c.status.Terminal() || strings.TrimSpace(seg) != "" {
		return status
	}
	var fill string
	switch {
	case c.status.State != StateDone:
		// The cancelled or failed status line says enough.
	case strings.TrimSpace(c.Body()) != "":
		fill = endOfAnswer
	default:
		fill = c.emptyAnswer(limit / 2)
	}
	switch {
	case fill == "":
		return status
	case status == "":
		return fill
	}
	return fill + FrameGap + status
}

// emptyAnswer is what a finished turn without answer text shows: its last
// commentary, marked as such (kept within max bytes), or a plain note.
func (c *Card) emptyAnswer(max int) string {
	if c.lastThought != nil {
		if t := strings.TrimSpace(c.lastThought.text.String()); t != "" {
			if len(promotedLead)+len(t) > max {
				t = "… " + tailBytes(t, max-len(promotedLead)-len("… "))
			}
			return promotedLead + t
		}
	}
	return noAnswer
}

// statusMarkdown is the status line a frame ends with ("" while running).
func (c *Card) statusMarkdown() string { return StatusLine(c.status) }

// AnswerFrame is the frame of a stream that shows answer, the whole answer
// of a finished turn kept apart from its card, from byte offset from, within
// limit bytes (as WithStreamLimit): what the turn's card would show with that
// answer as its body. A channel uses it to show, later, what its streams
// could not.
func AnswerFrame(answer string, from, limit int) StreamFrame {
	c := New(WithStreamLimit(limit))
	c.appendBody("", toValidUTF8(answer))
	c.SetStatus(Status{State: StateDone})
	return c.Stream(from, 0)
}
