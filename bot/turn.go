package bot

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

// windowNoteRoom is kept free in every frame for the note that closes a
// stream early, so adding it never breaks the platform's byte cap.
const windowNoteRoom = 256

const (
	textWindowClosed = "_(this reply is taking long: the rest of the answer follows in a separate message)_"
	textShutdown     = "Stopped: the bot is shutting down. Send the message again to retry."
	textStopNotice   = "Stopped with /stop."
	textLeaseLost    = "another server took over this conversation"
)

// runTurn runs one queued message as an agent turn and publishes its card.
func (e *Engine) runTurn(ctx context.Context, w *worker, q queued, takeover bool) {
	log := e.log.With("conv", q.Conversation, "msgid", q.MsgID, "stream", q.StreamID)
	card := cards.New(cards.WithTitle(q.Text), cards.WithStreamLimit(cards.StreamMaxBytes-windowNoteRoom),
		cards.WithProgressStyle(cards.ProgressStyle(e.cfg.ProgressStyle)))
	out := &stream{e: e, log: log, q: q, open: true}
	// Frames must reach the store even while the engine shuts down: the last
	// one tells the user the turn was stopped.
	saveCtx := context.WithoutCancel(ctx)
	pub := cards.NewPublisher(card, out.render, func(f shown, final bool) { out.emit(saveCtx, f, final) },
		cards.WithInterval(e.cfg.UpdateInterval))
	sink := cardSink{pub: pub}

	stopWindow := e.watchWindow(q, out, pub)
	pub.Refresh() // show the turn as running at once

	turnCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	timed, cancelTimer := context.WithTimeoutCause(turnCtx, e.cfg.TurnTimeout, errTimeout)
	defer cancelTimer()
	w.setCancel(stop)
	stopReason, err := e.prompt(timed, log, q, sink, takeover)
	w.setCancel(nil)
	pub.Do(func(*cards.Card) { out.end() })
	if e.hooks.turnEnded != nil {
		e.hooks.turnEnded(q.StreamID)
	}
	stopWindow()

	status := e.outcome(ctx, timed, sink, stopReason, err)
	log.Info("turn ended", "status", status.String())
	pub.SetStatus(status)
	pub.Close()
	dctx, cancel := context.WithTimeout(saveCtx, 30*time.Second)
	defer cancel()
	out.deliverRest(dctx, card)
}

// prompt opens the conversation's session and runs the turn in it.
func (e *Engine) prompt(ctx context.Context, log *slog.Logger, q queued, sink cardSink, takeover bool) (acp.StopReason, error) {
	sid, _, note, err := e.session(ctx, q.Conversation, takeover)
	if err != nil {
		return "", err
	}
	if note != "" {
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: note})
	}
	e.mu.Lock()
	e.running[sid] = sink
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.running, sid)
		e.mu.Unlock()
	}()

	// A cancelled context alone may not stop the agent's turn on its side;
	// Cancel does, and Prompt then returns.
	done := make(chan struct{})
	cancelled := make(chan struct{})
	go func() {
		defer close(cancelled)
		select {
		case <-done:
		case <-ctx.Done():
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := e.agent.Cancel(cctx, sid); err != nil {
				log.Warn("cancel agent turn", "session", sid, "err", err)
			}
		}
	}()
	log.Info("turn started", "session", sid)
	stop, err := e.agent.Prompt(ctx, sid, q.Text, sink)
	close(done)
	<-cancelled
	return stop, err
}

// outcome is the card status for how the turn ended, naming why it was cut
// short when the engine cut it.
func (e *Engine) outcome(runCtx, turnCtx context.Context, sink cardSink, stop acp.StopReason, err error) cards.Status {
	if err == nil && stop != acp.StopReasonCancelled {
		return cards.Finished(stop, nil) // it ended on its own, whatever raced it
	}
	cause := context.Cause(turnCtx)
	switch {
	case runCtx.Err() != nil:
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: textShutdown})
		return cards.Status{State: cards.StateCancelled}
	case errors.Is(cause, errTimeout):
		return cards.Status{State: cards.StateFailed, Detail: textTimeout(e.cfg.TurnTimeout)}
	case errors.Is(cause, errStopped):
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: textStopNotice})
		return cards.Status{State: cards.StateCancelled}
	case errors.Is(cause, errLeaseLost):
		return cards.Status{State: cards.StateFailed, Detail: textLeaseLost}
	}
	return cards.Finished(stop, explainAgentFailure(err))
}

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
	e            *Engine
	log          *slog.Logger
	q            queued
	open         bool
	from         int
	shown        int
	ended        bool
	windowClosed bool
}

func (s *stream) render(c *cards.Card) shown {
	if !s.open {
		return shown{skip: true}
	}
	// Once the turn is over its next frame carries the whole outcome, so a
	// window that closed meanwhile no longer cuts the stream short.
	return shown{StreamFrame: c.Stream(s.from, s.shown), windowClosed: s.windowClosed && !s.ended}
}

// emit writes a frame to the store. A body that outgrew the frame, or a
// window that ended, finishes the stream; the rest is delivered at the end.
func (s *stream) emit(ctx context.Context, f shown, final bool) {
	if f.skip {
		return
	}
	state, content := byte(frameRunning), f.Content
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
	if state == frameFinished {
		s.open = false
		s.from = f.BodyEnd
		if final && !f.MustFinish {
			s.from = -1 // nothing left to deliver
		}
	}
	saved, err := s.e.saveTurnFrame(ctx, s.q.StreamID, s.q.owner(), state, content)
	switch {
	case err != nil:
		s.log.Warn("publish frame", "final", state == frameFinished, "err", err)
	case !saved:
		// Another replica finished this stream because this turn's lease
		// lapsed: its card already tells the user to send the message
		// again, so nothing more of this turn is shown or delivered.
		s.log.Warn("stream was finished by another replica after this turn lost its lease; dropping the rest of the turn's output")
		s.open = false
		s.from = -1
	}
}

// deliverRest sends what the stream could not show, once the turn is over,
// as one message ending with the card's status. What that message cannot
// carry, or all of it when it could not be sent, is kept for /more.
func (s *stream) deliverRest(ctx context.Context, c *cards.Card) {
	if s.from < 0 {
		return
	}
	body := c.Body()
	fr := c.Stream(s.from, 0) // a new message: nothing of it shown yet
	d := Delivery{
		Conversation: s.q.Conversation, User: s.q.User, StreamID: s.q.StreamID, ReplyURL: s.q.ReplyURL,
		More: fr.MustFinish, Markdown: fr.Content, Body: body[fr.BodyStart:fr.BodyEnd],
	}
	if d.More {
		d.Markdown += "\n\n" + textMoreHint
	}
	unread := fr.BodyEnd
	if err := s.e.deliver.Deliver(ctx, d); err != nil {
		s.log.Error("deliver continuation; not retried so nothing shows twice, kept for /more", "err", err)
		unread = fr.BodyStart
	}
	if unread < len(body) {
		if err := s.e.store.SaveRest(ctx, s.q.Conversation, s.q.Text, body, unread); err != nil {
			s.log.Error("keep the rest of the answer for /more", "err", err)
		}
	}
}
