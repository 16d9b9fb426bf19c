package longconn

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/wecodex/wecodex/cards"
)

// Snapshot is one whole frame of a turn's card for the reply stream of one
// callback: frames are snapshots, so a newer one makes any older one moot.
type Snapshot struct {
	ReqID    string `json:"req_id"`    // the message callback's req_id, which carries the stream
	StreamID string `json:"stream_id"` // stream.id, the same for every frame of the stream
	ChatID   string `json:"chat_id"`   // userid (single chat) or chatid (group), for aibot_send_msg
	Seq      int64  `json:"seq"`       // grows with every snapshot of the stream
	Content  string `json:"content"`   // stream.content: markdown, ≤ 20,480 bytes
	Finish   bool   `json:"finish"`
	// Body is the card's whole answer; Content shows Body[:BodyEnd]. What a
	// final frame cannot show, or what a stream that expired never showed,
	// goes out through aibot_send_msg.
	Body    string `json:"body"`
	BodyEnd int    `json:"body_end"`
	// Items are the pictures a final frame shows with the answer
	// (stream.msg_item).
	Items []MsgItem `json:"msg_item,omitempty"`
}

// Sender sends one request and waits for its ack (Client implements it).
type Sender interface {
	Request(ctx context.Context, cmd, reqID string, body any) (Frame, error)
}

// DefaultMarkdownMax is the most bytes one aibot_send_msg markdown carries.
// WeCom documents no cap for it; 4,000 stays under the 4,096 of WeCom's
// other markdown messages.
const DefaultMarkdownMax = 4000

// Pusher pushes snapshots on the connection: per req_id at most one frame
// awaits its ack, a newer snapshot replaces one still waiting, and the final
// one is always sent, once.
type Pusher struct {
	ctx         context.Context
	send        Sender
	log         *slog.Logger
	markdownMax int
	hooks       PushHooks

	mu      sync.Mutex
	streams map[string]*pushStream
	ended   int // ended streams in streams
	wg      sync.WaitGroup
}

type pushStream struct {
	lastSeq int64
	waiting *Snapshot
	busy    bool
	expired bool // WeCom refused the stream (846608, 846605): the rest goes by aibot_send_msg
	shown   int  // the BodyEnd of the last frame WeCom acked
	ended   bool // the final snapshot was pushed: later offers are repeats
}

// maxEnded bounds how many ended streams are remembered to drop repeats
// (the holder may hear of a final frame twice: directly and from Redis).
const maxEnded = 4096

// PushHooks let the pusher's owner take part in a stream's end; nil hooks
// do nothing.
type PushHooks struct {
	// Claim is asked before a stream's final snapshot goes out; false
	// means another holder pushes it, and this pusher sends nothing more
	// on the stream.
	Claim func(Snapshot) bool
	// Unclaim gives back a claimed final snapshot that was never written
	// (the pusher stopped first), for the next holder to push.
	Unclaim func(Snapshot)
	// Ended is called once a stream's final snapshot was handled, whatever
	// the outcome.
	Ended func(Snapshot)
}

// NewPusher pushes through send until ctx ends; Wait then waits for it.
func NewPusher(ctx context.Context, send Sender, log *slog.Logger, hooks PushHooks) *Pusher {
	if hooks.Claim == nil {
		hooks.Claim = func(Snapshot) bool { return true }
	}
	if hooks.Unclaim == nil {
		hooks.Unclaim = func(Snapshot) {}
	}
	if hooks.Ended == nil {
		hooks.Ended = func(Snapshot) {}
	}
	return &Pusher{ctx: ctx, send: send, log: log, markdownMax: DefaultMarkdownMax, hooks: hooks, streams: map[string]*pushStream{}}
}

// Offer queues s for its stream. It never blocks; an older or repeated
// snapshot (by Seq) is dropped.
func (p *Pusher) Offer(s Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.streams[s.ReqID]
	if st == nil {
		st = &pushStream{}
		p.streams[s.ReqID] = st
	}
	if st.ended || s.Seq <= st.lastSeq {
		return
	}
	st.lastSeq, st.waiting = s.Seq, &s
	if !st.busy {
		st.busy = true
		p.wg.Add(1)
		go p.work(st)
	}
}

// Wait waits for the pushes under way after the pusher's ctx ended.
func (p *Pusher) Wait() { p.wg.Wait() }

func (p *Pusher) work(st *pushStream) {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		s := st.waiting
		st.waiting = nil
		if s == nil || p.ctx.Err() != nil {
			st.busy = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		if !s.Finish {
			p.push(st, *s)
			continue
		}
		if p.hooks.Claim(*s) {
			p.push(st, *s)
		} else {
			p.markEnded(st)
		}
		p.hooks.Ended(*s)
	}
}

func (p *Pusher) push(st *pushStream, s Snapshot) {
	if !st.expired {
		stream := map[string]any{"id": s.StreamID, "finish": s.Finish, "content": s.Content}
		if s.Finish && len(s.Items) > 0 {
			stream["msg_item"] = s.Items
		}
		body := map[string]any{"msgtype": "stream", "stream": stream}
		_, err := p.send.Request(p.ctx, CmdRespond, s.ReqID, body)
		switch code := Code(err); {
		case err == nil:
			st.shown = s.BodyEnd
		case s.Finish && errors.Is(err, ErrNotSent):
			// WeCom never saw it: the stream is the next holder's to end.
			p.hooks.Unclaim(s)
			return
		case code == CodeStreamExpired || code == CodeInvalidReqID:
			p.log.Info("long connection: stream refused; the answer continues by aibot_send_msg", "req_id", s.ReqID, "errcode", code)
			st.expired = true
		case errors.Is(err, ErrAckTimeout) || errors.Is(err, ErrConnLost):
			// Unknown outcome: WeCom may show it. Treat it as shown, so a
			// final frame is never sent twice.
			st.shown = s.BodyEnd
		default:
			p.log.Warn("long connection: stream frame failed", "req_id", s.ReqID, "err", err)
		}
	}
	if !s.Finish {
		return
	}
	// An expired stream's last frame may end inside a word that no frame
	// can finish now: the rest starts at that word. The webhook instead
	// cuts its last frame at a word (cards.StreamEnd), as it knows when its
	// window ends; WeCom does not say when a long connection's does. A
	// final frame the card cut for length ends where the card chose.
	rest := ""
	if from := st.shown; from < len(s.Body) {
		if st.expired {
			from = cards.ContinueFrom(s.Body, from)
		}
		rest = s.Body[from:]
	}
	p.markEnded(st)
	for i, chunk := range cards.SplitMarkdown(rest, p.markdownMax-len(cards.ContinuationLead)-len(cards.FrameGap)) {
		if i == 0 {
			// Only the answer's rest, marked as the card's continuation.
			chunk = cards.ContinuationLead + cards.FrameGap + chunk
		}
		body := map[string]any{"chatid": s.ChatID, "msgtype": "markdown", "markdown": map[string]string{"content": chunk}}
		if _, err := p.send.Request(p.ctx, CmdSend, NewReqID(CmdSend), body); err != nil {
			// Sent at most once: a repeat could show the same words twice.
			p.log.Warn("long connection: aibot_send_msg failed", "req_id", s.ReqID, "err", err)
		}
	}
}

// markEnded marks st ended and forgets ended streams when too many pile up.
func (p *Pusher) markEnded(st *pushStream) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st.ended = true
	p.ended++
	if p.ended <= maxEnded {
		return
	}
	for id, x := range p.streams {
		if x.ended && x != st {
			delete(p.streams, id)
		}
	}
	p.ended = 1
}
