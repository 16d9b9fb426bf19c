package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// Button keys of the progress card: "stop:<stream>" stops the turn while
// its card is open; "done:<stream>", on the ended card, does nothing.
const (
	keyStop = "stop:"
	keyDone = "done:"
)

// openTimeout bounds sending the progress card: its wait for the send
// budget included.
const openTimeout = 2 * time.Minute

// presenter shows one turn: the progress card when it starts, and when it
// ends the card updated once and the answer as markdown messages. The app
// cannot edit a message, so the snapshots in between show nothing.
type presenter struct {
	bot.NoSnapshots
	c      *Channel
	t      bot.Turn
	user   string
	log    *slog.Logger
	opened chan struct{} // closed once the progress card was sent (or failed)
	// uploads are the answer's files, uploaded by SendFiles (on the turn's
	// goroutine, before Finish) and sent by Finish after the answer.
	uploads []upload
}

// Start sends the progress card, without holding the turn up.
func (p *presenter) Start(ctl bot.CardControl) {
	var tc wecom.TemplateCard
	ctl.Do(func(c *cards.Card) { tc = progressCard(c, p.t.To.Stream, false) })
	go func() {
		defer close(p.opened)
		p.open(tc)
	}()
}

func (p *presenter) open(tc wecom.TemplateCard) {
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	if err := p.c.pace.wait(ctx, p.user); err != nil {
		p.log.Warn("progress card not sent", "err", err)
		return
	}
	code, err := p.c.api.sendCard(ctx, p.user, tc)
	if err != nil {
		p.log.Warn("progress card not sent; the answer still comes as messages", "err", err)
		return
	}
	if code == "" {
		return
	}
	if err := p.c.store.SaveCardCode(ctx, p.t.To.Stream, code); err != nil {
		p.log.Warn("keep the progress card's code; the card will not be updated", "err", err)
	}
}

var (
	_ bot.Starter  = (*presenter)(nil)
	_ bot.Finisher = (*presenter)(nil)
)

// Finish updates the card to how the turn ended and sends the answer. It
// waits for the send budget as long as that takes (never dropping a part),
// so it outlives ctx's deadline; the turn's lease is held meanwhile, which
// keeps the next answer to the user behind this one.
func (p *presenter) Finish(ctx context.Context, c *cards.Card) {
	ctx = context.WithoutCancel(ctx)
	<-p.opened
	first, err := p.c.store.ClaimFinish(ctx, p.t.To.Stream)
	if err != nil {
		p.log.Warn("mark the turn's end sent; sending it anyway", "err", err)
		first = true
	}
	if !first {
		p.log.Info("turn's end already shown (its replica was presumed lost)")
		return
	}
	p.c.closeCard(ctx, p.user, p.t.To.Stream, c)
	if err := p.c.sendParts(ctx, p.user, c.Markdown(wecom.AppMarkdownMaxBytes)); err != nil {
		p.log.Error("answer not sent", "err", err)
	}
	p.sendUploads(ctx)
}

// closeCard updates stream's progress card, once, to c's final state.
func (c *Channel) closeCard(ctx context.Context, user, stream string, card *cards.Card) {
	code, err := c.store.TakeCardCode(ctx, stream)
	if err != nil || code == "" {
		if err != nil {
			c.log.Warn("find the progress card's code; the card keeps its first state", "stream", stream, "err", err)
		}
		return
	}
	err = c.api.updateCard(ctx, user, code, progressCard(card, stream, true))
	switch {
	case cardCodeSpent(err):
		c.log.Warn("progress card already updated: its response_code is used or expired", "stream", stream, "errcode", errcodeCardCodeSpent)
	case err != nil:
		c.log.Warn("progress card not updated", "stream", stream, "err", err)
	}
}

// progressCard is the card of a turn: a stop button while it runs, a
// grey button naming the outcome once it ended.
func progressCard(c *cards.Card, stream string, ended bool) wecom.TemplateCard {
	b := wecom.CardButton{Text: "Stop", Style: 3, Key: keyStop + stream}
	if ended {
		b = wecom.CardButton{Text: outcomeWord(c.Status()), Style: 4, Key: keyDone + stream}
	}
	return wecom.ProgressCard(c, wecom.TemplateCardOptions{Source: "wecodex", TaskID: "wx_" + stream, Buttons: []wecom.CardButton{b}})
}

func outcomeWord(s cards.Status) string {
	switch s.State {
	case cards.StateDone:
		return "Done"
	case cards.StateCancelled:
		return "Stopped"
	case cards.StateFailed:
		return "Failed"
	}
	return "Ended"
}
