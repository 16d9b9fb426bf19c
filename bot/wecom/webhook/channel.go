package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// Name is the webhook channel's name in queued messages and on /readyz.
const Name = "wecom_aibot"

// DefaultStreamWindow is wecom.aibot.stream_window's default: WeCom stops
// refreshing a stream 6 minutes after the user's message; the rest of a
// longer turn goes through response_url.
const DefaultStreamWindow = 5*time.Minute + 30*time.Second

// windowNoteRoom is kept free in every frame for the note that closes a
// stream early, so adding it never breaks WeCom's byte cap.
const windowNoteRoom = 256

// Intake is what the channel hands messages to; *bot.Engine implements it.
type Intake interface {
	Receive(ctx context.Context, m bot.Message) (bot.Receipt, error)
	// Allowed says whether m's sender may use the bot at all, so a
	// stranger's files are never fetched.
	Allowed(m bot.Message) bool
}

// Options configure a Channel.
type Options struct {
	// StreamWindow is wecom.aibot.stream_window: how long after the user's
	// message WeCom still shows stream frames. Zero means
	// DefaultStreamWindow.
	StreamWindow time.Duration
	// RestoreEvery is how often a replica writes back the frames of its
	// running streams that Redis lost; zero means DefaultRestoreEvery.
	RestoreEvery time.Duration
	// Logger receives the channel's log lines; nil means slog.Default().
	Logger *slog.Logger
}

// Channel is the webhook's bot.Channel: it keeps each reply stream's newest
// frame in the store for WeCom's refresh pulls, finishes a stream whose
// window ends, delivers the rest through the Deliverer and keeps what that
// cannot carry for /more.
type Channel struct {
	store   Store
	deliver Deliverer
	window  time.Duration
	// restoreEvery: see Options.RestoreEvery.
	restoreEvery time.Duration
	log          *slog.Logger
	hooks        testHooks
	// running are the streams whose turns run here, for refreshes that
	// find no frame in Redis.
	running runningStreams
	// repeats answers WeCom's redeliveries of a message seen here.
	repeats repeats
}

var (
	_ bot.Channel   = (*Channel)(nil)
	_ bot.Continuer = (*Channel)(nil)
)

// New returns the webhook channel over st, continuing answers through d.
func New(st Store, d Deliverer, o Options) (*Channel, error) {
	if st == nil || d == nil {
		return nil, errors.New("wecom aibot webhook channel: needs a store and a deliverer")
	}
	if o.StreamWindow <= 0 {
		o.StreamWindow = DefaultStreamWindow
	}
	if o.RestoreEvery <= 0 {
		o.RestoreEvery = DefaultRestoreEvery
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Channel{store: st, deliver: d, window: o.StreamWindow, restoreEvery: o.RestoreEvery, log: o.Logger.With("channel", Name)}, nil
}

// Name returns the constant Name: queued messages carry it, so it never
// changes between releases.
func (c *Channel) Name() string { return Name }

// CardOptions keep every frame within WeCom's stream limit with room for
// the window note.
func (c *Channel) CardOptions() []cards.Option {
	return []cards.Option{cards.WithStreamLimit(wecom.MaxStreamContentBytes - windowNoteRoom)}
}

// Show writes r as its stream's frame. A waiting frame replaces only a
// waiting one; anything else replaces anything but a finished frame.
func (c *Channel) Show(ctx context.Context, r bot.Reply) (bool, error) {
	own := owner(r.Conversation, r.User)
	text := r.Text
	if r.Card != nil {
		text = r.Card.Stream(0, 0).Content
	}
	switch r.State {
	case bot.ReplyWaiting:
		return c.saveWaiting(ctx, r.To.Stream, own, text)
	case bot.ReplyRunning:
		return c.saveTurnFrame(ctx, r.To.Stream, own, frameRunning, text)
	default:
		return c.saveTurnFrame(ctx, r.To.Stream, own, frameFinished, text)
	}
}

// Streams binds the channel to the intake it is registered on, for the
// endpoint.
func (c *Channel) Streams(in Intake) Streams { return bound{c, in} }

type bound struct {
	c  *Channel
	in Intake
}

func (b bound) Allowed(m bot.Message) bool { return b.in.Allowed(m) }

func (b bound) Receive(ctx context.Context, m bot.Message) (Frame, error) {
	return b.c.Receive(ctx, b.in, m)
}

func (b bound) Frame(ctx context.Context, streamID string, from Asker) (Frame, bool, error) {
	return b.c.Frame(ctx, streamID, from)
}

// Receive hands m to intake and returns the frame WeCom's callback is
// answered with.
func (c *Channel) Receive(ctx context.Context, in Intake, m bot.Message) (Frame, error) {
	m.Channel = Name
	if f, ok := c.repeatFrame(ctx, m); ok {
		return f, nil
	}
	rc, err := in.Receive(ctx, m)
	if err != nil {
		return Frame{}, err
	}
	r := rc.Reply
	// Claimed for this stream, first time or not: a repeat of m finds it.
	c.repeats.remember(repeatOf(m), r.To.Stream, time.Now())
	f := Frame{StreamID: r.To.Stream, Content: r.Text, Finish: r.State == bot.ReplyFinished}
	if !rc.Current {
		return f, nil
	}
	s, ok, err := c.loadFrame(ctx, r.To.Stream)
	if err != nil || !ok {
		return Frame{StreamID: r.To.Stream, Content: r.Text}, err
	}
	return s.frame(r.To.Stream), nil
}

// Present opens the stream of a turn that starts now.
func (c *Channel) Present(t bot.Turn) bot.Presentation {
	log := c.log.With("conv", t.Conversation, "msgid", t.MsgID, "stream", t.To.Stream)
	c.running.start(t.To.Stream, owner(t.Conversation, t.User))
	return bot.Present(&stream{c: c, log: log, t: t, open: true})
}

// More renders the next unread part of the conversation's last long answer
// and keeps what is still unread after it.
func (c *Channel) More(ctx context.Context, conv bot.Conversation) (string, error) {
	out, err := c.more(ctx, conv.Key())
	if err != nil {
		return "", fmt.Errorf("/more in %s: %w", conv, err)
	}
	return out, nil
}
