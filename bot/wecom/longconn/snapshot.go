package longconn

import "github.com/wecodex/wecodex/cards"

// StreamRenderer renders a turn's card into the snapshots of one reply
// stream: the stream always shows the body from its start, never takes back
// text it showed, and numbers its snapshots so stale ones can be dropped.
// Render is a cards.Publisher render function; it is not safe for use by
// several goroutines (a Publisher calls it from one).
type StreamRenderer struct {
	ReqID, StreamID, ChatID string

	seq   int64
	shown int
}

// Render makes the next snapshot of c. The caller sets Finish on the last
// one (the Publisher's final frame, or a terminal status).
func (r *StreamRenderer) Render(c *cards.Card) Snapshot {
	fr := c.Stream(0, r.shown)
	r.seq++
	r.shown = fr.BodyEnd
	return Snapshot{ReqID: r.ReqID, StreamID: r.StreamID, ChatID: r.ChatID, Seq: r.seq,
		Content: fr.Content, Finish: c.Status().Terminal(), Body: c.Body(), BodyEnd: fr.BodyEnd}
}
