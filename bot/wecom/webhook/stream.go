package webhook

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// textWindowClosed ends a stream whose reply window closed; cards owns the
// words, so a reader of frames (the playground) knows them.
const textWindowClosed = cards.WindowClosedNote

// shown is what the publisher renders for a turn: the stream frame, and
// whether the stream must close now because its window ended. skip is set
// once the stream is finished: nothing more goes to it.
type shown struct {
	cards.StreamFrame
	windowClosed bool
	skip         bool
}

// stream is where a turn's card goes: frames of the platform stream while it
// is open, then continuation messages through the Deliverer. from is the body
// offset where text not yet shown starts; shown is where the body the stream
// last showed ends, so a roll-over never takes back text the user saw. open,
// from and shown are used only on the publisher's goroutine (render and
// emit), then by deliverRest after the publisher closed. ended and
// windowClosed are guarded by the card's lock: set in Publisher.Do, read in
// render.
type stream struct {
	c            *Channel
	log          *slog.Logger
	t            bot.Turn
	pub          bot.CardControl
	stopWindow   func()
	stopKeep     func()
	open         bool
	from         int
	shown        int
	ended        bool
	windowClosed bool
	// requeueText, once set (Requeue), replaces every frame still to come;
	// requeued records that it reached the store with the stream open.
	requeueText atomic.Pointer[string]
	requeued    bool
	// items are the pictures the final frame shows (SendFiles, on the
	// turn's goroutine, before the final frame is rendered).
	items atomic.Pointer[wecom.MsgItems]
}

// Requeue makes the frames still to come, the final one included, the
// waiting frame text: the stream stays open for the re-run of the message.
func (s *stream) Requeue(text string) { s.requeueText.Store(&text) }

// Requeued reports whether the stream shows the re-queued text and is
// still open. Call it after the final frame.
func (s *stream) Requeued() bool { return s.requeued }

// Start watches the stream window of the turn.
func (s *stream) Start(card bot.CardControl) {
	s.pub = card
	s.stopWindow = s.c.watchWindow(s)
	s.stopKeep = s.c.keepFrame(s.t.To.Stream)
}

// Render is the frame the card shows now.
func (s *stream) Render(c *cards.Card) shown { return s.render(c) }

// Show writes a rendered frame.
func (s *stream) Show(ctx context.Context, f shown, final bool) { s.emit(ctx, f, final) }

// Ended records the turn's end on the card and stops the window watch.
func (s *stream) Ended() {
	s.pub.Do(func(*cards.Card) { s.end() })
	s.c.running.end(s.t.To.Stream)
	if s.c.hooks.turnEnded != nil {
		s.c.hooks.turnEnded(s.t.To.Stream)
	}
	s.stopWindow()
	s.stopKeep()
}

// Finish delivers what the stream could not show.
func (s *stream) Finish(ctx context.Context, c *cards.Card) { s.deliverRest(ctx, c) }

func (s *stream) render(c *cards.Card) shown {
	if !s.open {
		return shown{skip: true}
	}
	// Once the turn is over its next frame carries the whole outcome, so a
	// window that closed meanwhile no longer cuts the stream short.
	if s.windowClosed && !s.ended {
		// The stream ends now, mid-turn: at a paragraph, sentence or word,
		// never inside a word; the continuation carries the rest.
		return shown{StreamFrame: c.StreamEnd(s.from, s.shown), windowClosed: true}
	}
	return shown{StreamFrame: c.Stream(s.from, s.shown)}
}

// emit writes a frame to the store. A body that outgrew the frame, or a
// window that ended, finishes the stream; the rest is delivered at the end.
func (s *stream) emit(ctx context.Context, f shown, final bool) {
	if f.skip {
		return
	}
	if text := s.requeueText.Load(); text != nil {
		s.emitRequeued(ctx, *text)
		return
	}
	state, content := frameRunning, f.Content
	switch {
	case f.MustFinish:
		state = frameFinished
		s.log.Info("answer outgrew the stream; the rest follows as separate messages")
	case final:
		state = frameFinished // the turn is over and everything fits
	case f.windowClosed:
		state = frameFinished
		if !strings.HasSuffix(content, "\n\n") {
			content += "\n\n"
		}
		content += textWindowClosed
		s.log.Info("stream window closed; the rest follows as separate messages")
	}
	s.shown = f.BodyEnd
	s.c.running.show(s.t.To.Stream, content, state == frameFinished)
	if state == frameFinished {
		s.open = false
		s.from = f.BodyEnd
		if final && !f.MustFinish {
			s.from = -1 // nothing left to deliver
		}
	}
	saved, err := s.save(ctx, state, content)
	switch {
	case err != nil:
		s.log.Warn("publish frame; dropped", "final", state == frameFinished, "err", err)
	case !saved:
		// Another replica finished this stream because this turn's lease
		// lapsed: its card already tells the user to send the message
		// again, so nothing more of this turn is shown or delivered.
		s.log.Warn("stream was finished by another replica after this turn lost its lease; dropping the rest of the turn's output")
		s.open = false
		s.from = -1
	}
}

// emitRequeued writes text as a waiting frame, so the stream stays open and
// the re-run, on whichever replica, writes its frames there. Nothing more of
// this run is shown or delivered.
func (s *stream) emitRequeued(ctx context.Context, text string) {
	s.open = false
	s.from = -1
	saved, err := s.c.saveTurnFrame(ctx, s.t.To.Stream, owner(s.t.Conversation, s.t.User), frameWaiting, text)
	switch {
	case err != nil:
		// The message is queued again all the same; the re-run's frames
		// replace this run's last one.
		s.log.Warn("publish re-queued frame", "err", err)
	case !saved:
		s.log.Warn("stream was finished by another replica; the message is not re-queued")
		return
	}
	s.requeued = true
}

// save writes a frame. A frame that finishes the stream is the one WeCom's
// refreshes wait for, so a Redis fault (restart, failover, stall) must not
// drop it: it is retried, bounded, until Redis answers. A running frame is
// not: the next one replaces it.
func (s *stream) save(ctx context.Context, state frameState, content string) (saved bool, err error) {
	own := owner(s.t.Conversation, s.t.User)
	if state != frameFinished {
		return s.c.saveTurnFrame(ctx, s.t.To.Stream, own, state, content)
	}
	items := s.items.Load()
	err = bot.RetryStore(ctx, func(ctx context.Context) error {
		if items != nil && *items != "" {
			saved, err = s.c.saveFinalFrame(ctx, s.t.To.Stream, own, content, *items)
			return err
		}
		saved, err = s.c.saveTurnFrame(ctx, s.t.To.Stream, own, state, content)
		return err
	}, func(attempt int, err error) {
		s.log.Warn("publish frame", "final", true, "attempt", attempt, "err", err)
	})
	return saved, err
}

// deliverRest sends what the stream could not show, once the turn is over,
// as one message ending with the card's status. What that message cannot
// carry, or all of it when it could not be sent, is kept for /more.
func (s *stream) deliverRest(ctx context.Context, c *cards.Card) {
	if s.from < 0 {
		return
	}
	body := c.Body()
	// A new message, marked as the card's continuation: only the answer's
	// rest, no progress (WeCom folds <think> only inside a stream).
	fr := c.Continuation(s.from)
	d := Delivery{
		Conversation: s.t.Conversation, User: s.t.User, StreamID: s.t.To.Stream, ReplyURL: s.t.To.URL,
		More: fr.MustFinish, Markdown: fr.Content, Body: body[fr.BodyStart:fr.BodyEnd],
	}
	if d.More {
		d.Markdown += "\n\n" + textMoreHint
	}
	// What the message leaves unread is kept before it is sent: it tells
	// the user to send /more, which must find it.
	if fr.BodyEnd < len(body) {
		s.keepRest(ctx, body, fr.BodyEnd)
	}
	if err := s.c.deliver.Deliver(ctx, d); err != nil {
		s.log.Error("deliver continuation; not retried so nothing shows twice, kept for /more", "err", err)
		s.keepRest(ctx, body, fr.BodyStart)
	}
}

// keepRest keeps body from byte from on for /more.
func (s *stream) keepRest(ctx context.Context, body string, from int) {
	if err := s.c.store.SaveRest(ctx, s.t.Conversation.Key(), s.t.Text, body, from); err != nil {
		s.log.Error("keep the rest of the answer for /more", "err", err)
	}
}

// A stream can hand its reply back to waiting for a re-queued message.
var _ bot.Requeuer = (*stream)(nil)

// A stream watches its window from the turn's start to its end, and
// delivers what it could not show once the turn is over.
var (
	_ bot.Starter  = (*stream)(nil)
	_ bot.Ender    = (*stream)(nil)
	_ bot.Finisher = (*stream)(nil)
)
