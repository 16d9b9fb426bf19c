package bot

import (
	"context"

	"github.com/wecodex/wecodex/cards"
)

// Presenter shows one turn's card on its channel, in snapshots of type S
// the channel chooses. The turn runner calls Render with the card locked
// (it must be quick and do no I/O) and Show with each throttled snapshot on
// the publisher's goroutine, final set on the last.
//
// A presenter that needs more of the turn implements Starter, Ender,
// Finisher or Requeuer too; one that shows only the turn's start and end
// embeds NoSnapshots.
type Presenter[S any] interface {
	Render(c *cards.Card) S
	Show(ctx context.Context, s S, final bool)
}

// Starter is a Presenter told when its turn starts, before the first
// snapshot, with the card it may change on its own.
type Starter interface {
	Start(card CardControl)
}

// Ender is a Presenter told once the agent's turn is over, before the card
// gets its final status.
type Ender interface {
	Ended()
}

// Finisher is a Presenter handed the ended turn's card after its last
// snapshot was shown.
type Finisher interface {
	Finish(ctx context.Context, c *cards.Card)
}

// Requeuer is a Presenter that can hand its reply back to waiting, for a
// turn the shutdown cuts short whose message is queued again: after
// Requeue(text) every snapshot still to be shown, the final one included,
// shows text as a waiting reply instead of the card, so the re-run, on
// whichever replica, presents on the same reply. Requeued, once the final
// snapshot was shown, reports whether the reply now shows text; false (the
// reply had already finished, say because a platform window closed) means
// the re-run could not show there, and the turn ends as cancelled instead.
// A Presenter that is not a Requeuer always ends such a turn cancelled.
type Requeuer interface {
	Requeue(text string)
	Requeued() bool
}

// CardControl is the running turn's card, for a presenter that must change
// what it shows on its own (a platform window that closes): Do runs f with
// the card locked; Refresh renders a snapshot now.
type CardControl interface {
	Do(f func(*cards.Card))
	Refresh()
}

// NoSnapshots is embedded by a Presenter that shows nothing between its
// turn's start and end (a platform that cannot edit what it sent).
type NoSnapshots struct{}

func (NoSnapshots) Render(*cards.Card) struct{}          { return struct{}{} }
func (NoSnapshots) Show(context.Context, struct{}, bool) {}

// Presentation is a turn's Presenter as the engine holds it, whatever its
// snapshot type: Present makes one.
type Presentation struct {
	// render renders the card now and returns what shows that snapshot.
	render    func(c *cards.Card) (show func(ctx context.Context, final bool))
	presenter any // for the optional interfaces
}

// Present is p for the engine.
func Present[S any](p Presenter[S]) Presentation {
	return Presentation{
		render: func(c *cards.Card) func(context.Context, bool) {
			s := p.Render(c)
			return func(ctx context.Context, final bool) { p.Show(ctx, s, final) }
		},
		presenter: p,
	}
}

// snapshot renders c; what it returns shows the snapshot. A zero
// Presentation shows nothing.
func (p Presentation) snapshot(c *cards.Card) func(context.Context, bool) {
	if p.render == nil {
		return func(context.Context, bool) {}
	}
	return p.render(c)
}

func (p Presentation) start(card CardControl) {
	if s, ok := p.presenter.(Starter); ok {
		s.Start(card)
	}
}

func (p Presentation) ended() {
	if e, ok := p.presenter.(Ender); ok {
		e.Ended()
	}
}

func (p Presentation) finish(ctx context.Context, c *cards.Card) {
	if f, ok := p.presenter.(Finisher); ok {
		f.Finish(ctx, c)
	}
}

func (p Presentation) requeuer() (Requeuer, bool) {
	rq, ok := p.presenter.(Requeuer)
	return rq, ok
}
