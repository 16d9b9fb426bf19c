package longconn

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// Name is the long-connection channel's name in queued messages and on
// /readyz.
const Name = "wecom_aibot_longconn"

// Intake is what the channel hands messages to; *bot.Engine implements it.
type Intake interface {
	Receive(ctx context.Context, m bot.Message) (bot.Receipt, error)
	// Allowed says whether m's sender may use the bot at all, so a
	// stranger's files are never fetched.
	Allowed(m bot.Message) bool
}

// Snapshot ordering across Show and the turn's presenter, which may run on
// different replicas: a waiting reply (a queue position) never replaces a
// turn's frame, and a finished reply (a lost turn's failure) replaces
// everything. Within the turn band a running reply (a lost message's note
// that it runs once more) is ordered by time, and a turn's frames by its
// start time plus a counter: the frames of a message's second run outrank
// the first run's, which ended at least a lease earlier.
const (
	seqTurn     int64 = 1 << 52
	seqFinished int64 = 1 << 53
)

// Channel is the long connection's bot.Channel.
type Channel struct {
	conn *Connection
	log  *slog.Logger
	// Media fetches the files of messages (wecom.media.*); each message
	// brings its own key. Set it before the connection runs.
	Media wecom.Fetcher

	fetches fetches
}

var _ bot.Channel = (*Channel)(nil)

// NewChannel presents on conn. Bind it to the engine with Receive as conn's
// OnCallback (see Callbacks).
func NewChannel(conn *Connection, log *slog.Logger) *Channel {
	if log == nil {
		log = slog.Default()
	}
	return &Channel{conn: conn, log: log.With("channel", Name), fetches: newFetches()}
}

// Name returns the constant Name: queued messages carry it, so it never
// changes between releases.
func (c *Channel) Name() string { return Name }

// CardOptions keep every frame within WeCom's stream cap.
func (c *Channel) CardOptions() []cards.Option {
	return []cards.Option{cards.WithStreamLimit(wecom.MaxStreamContentBytes)}
}

// Show pushes r as its stream's frame.
func (c *Channel) Show(ctx context.Context, r bot.Reply) (bool, error) {
	text := r.Text
	if r.Card != nil {
		text = r.Card.Stream(0, 0).Content
	}
	seq := time.Now().UnixMicro()
	switch r.State {
	case bot.ReplyFinished:
		seq += seqFinished
	case bot.ReplyRunning:
		seq += seqTurn
	}
	s := Snapshot{ReqID: r.To.Ref, StreamID: r.To.Stream, ChatID: r.Conversation.ID, Seq: seq,
		Content: text, Finish: r.State == bot.ReplyFinished, Body: text, BodyEnd: len(text)}
	return c.conn.Present(ctx, s)
}

// Present opens the stream of a turn that starts now. A conversation's ID
// is where aibot_send_msg reaches it: the user in a 1:1 chat, the chatid in
// a group.
func (c *Channel) Present(t bot.Turn) bot.Presentation {
	return bot.Present(&presenter{c: c, log: c.log.With("conv", t.Conversation, "msgid", t.MsgID, "stream", t.To.Stream),
		base: seqTurn + time.Now().UnixMicro(),
		r:    StreamRenderer{ReqID: t.To.Ref, StreamID: t.To.Stream, ChatID: t.Conversation.ID}})
}

// Callbacks returns the function for Options.OnCallback that hands message
// callbacks to in.
func (c *Channel) Callbacks(in Intake) func(context.Context, Frame) {
	h := c.Handler(in)
	return func(ctx context.Context, f Frame) { h(ctx, f) }
}

// Handler is Callbacks that also says how each callback went, as
// bot.Observer.Callback counts it: bot.CallbackOK, bot.CallbackRejected (a
// callback we drop or cannot understand) or bot.CallbackError (we failed).
func (c *Channel) Handler(in Intake) func(context.Context, Frame) string {
	return func(ctx context.Context, f Frame) string { return c.receive(ctx, in, f) }
}

func (c *Channel) receive(ctx context.Context, in Intake, f Frame) string {
	cb, err := ParseCallback(f)
	if errors.Is(err, ErrIgnored) {
		c.log.Debug("callback ignored", "err", err)
		return bot.CallbackRejected
	}
	if err != nil {
		c.log.Warn("callback not understood", "cmd", f.Cmd, "err", err)
		return bot.CallbackRejected
	}
	if cb.Kind == wecom.KindEvent {
		if d, ok := in.(Decider); ok && cb.Event != nil && cb.Event.Type == "template_card_event" {
			return c.click(ctx, d, cb)
		}
		event := ""
		if cb.Event != nil {
			event = cb.Event.Type
		}
		c.log.Info("event ignored", "event", event, "user", cb.UserID)
		return bot.CallbackOK
	}
	m := bot.Message{ID: cb.MsgID, Conversation: cb.Conversation(), User: cb.UserID, Corp: cb.CorpID,
		Channel: Name, Reply: bot.ReplyTo{Ref: cb.ReqID}}
	m.Text, m.Quote = wecom.Prompt(cb.Text, cb.Quote, len(cb.Media) > 0)
	if len(cb.Media) > 0 && in.Allowed(m) {
		// Taken for fetching; how intake takes it is logged later. A
		// stranger's files are not fetched: intake refuses the message.
		c.fetchThenReceive(in, m, cb.Media)
		return bot.CallbackOK
	}
	if c.joinBusyLine(in, m) {
		return bot.CallbackOK // received after the message before it (media.go)
	}
	if _, err := in.Receive(ctx, m); err != nil {
		c.log.Warn("message not taken", "msgid", cb.MsgID, "err", err)
		return bot.CallbackError
	}
	return bot.CallbackOK
}

// presenter streams one turn's card on the message's req_id.
type presenter struct {
	c   *Channel
	log *slog.Logger
	r   StreamRenderer
	// base is the turn band plus when the turn started (see seqTurn).
	base int64

	mu    sync.Mutex
	items []MsgItem // the pictures the final frame shows (SendFiles)
}

func (p *presenter) Render(c *cards.Card) Snapshot {
	s := p.r.Render(c)
	s.Seq += p.base
	return s
}

func (p *presenter) Show(ctx context.Context, s Snapshot, final bool) {
	s.Finish = s.Finish || final
	if s.Finish {
		p.mu.Lock()
		s.Items = p.items
		p.mu.Unlock()
	}
	if _, err := p.c.conn.Present(ctx, s); err != nil {
		p.log.Warn("frame not presented", "err", err)
	}
}
