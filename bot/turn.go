package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

const (
	// textShutdown ends a turn the shutdown cut short whose reply cannot show
	// a re-run (see Requeuer).
	textShutdown = "Stopped: the bot is shutting down. Send the message again to retry."
	// textRequeued is the reply of a turn the shutdown cut short and queued
	// again.
	textRequeued   = "⏳ The server running this turn is restarting: the message is queued again and starts over on another server in a moment."
	textStopNotice = "Stopped with /stop."
	textLeaseLost  = "another server took over this conversation"
)

// turnRunner runs one queued message as an agent turn: it opens the
// conversation's session, prompts the agent, folds the updates into the
// turn's card and hands the card's snapshots to the message's channel.
type turnRunner struct {
	cfg      Config
	store    TurnStore
	agent    acpbridge.Agent
	channels *channels
	// perms wraps each turn's card into the sink its agent writes to and
	// asks (agent.approval).
	perms permissions
	// approve asks a person, for a project whose approval is ask while
	// agent.approval is not (sinkFor).
	approve *approvals
	// limits counts each turn's tokens for limits.tokens_per_user_per_day;
	// nil counts nothing.
	limits LimitStore
	// threads records the sessions each conversation uses, for
	// /sessions; nil records nothing.
	threads ThreadStore
	usage   UsageStore // nil: /usage shows no session tokens
	log     *slog.Logger

	mu       sync.Mutex
	sessions map[acp.SessionId]struct{} // sessions this process created or loaded
}

func newTurnRunner(cfg Config, st TurnStore, agent acpbridge.Agent, cs *channels, ap *approvals, log *slog.Logger) *turnRunner {
	return &turnRunner{cfg: cfg, store: st, agent: agent, channels: cs, perms: newPermissions(cfg.Approval, ap), approve: ap, log: log,
		sessions: make(map[acp.SessionId]struct{})}
}

func errNoChannel(q queued) error {
	return fmt.Errorf("message %s was queued on channel %q, which this replica does not serve: register the same channels on every replica", q.MsgID, q.Channel)
}

// newCard is a card for q on its channel.
func (r *turnRunner) newCard(ch Channel, q queued) *cards.Card {
	opts := []cards.Option{cards.WithTitle(cardTitle(q)), cards.WithProgressStyle(cards.ProgressStyle(r.cfg.ProgressStyle)),
		cards.WithHeader(modeHeader(q.Mode))}
	return cards.New(append(opts, ch.CardOptions()...)...)
}

// cardTitle names the turn on its card: the user's text, else the quoted
// text a quote-only message runs, else the files a message of nothing else
// brought (a picture sent alone would otherwise have an empty title).
func cardTitle(q queued) string {
	if q.Text != "" {
		return q.Text
	}
	if q.Quote != "" {
		return q.Quote
	}
	names := make([]string, 0, len(q.Attachments))
	for _, a := range q.Attachments {
		names = append(names, a.Name)
	}
	if len(names) == 0 {
		return ""
	}
	return "📎 " + strings.Join(names, ", ")
}

// run runs q as a turn and presents its card on q's channel. cut is true
// when the end of ctx (the engine shutting down) cut the turn short and its
// reply now says the message runs again: the caller queues it again.
func (r *turnRunner) run(ctx context.Context, w *worker, q queued, takeover bool) (cut bool) {
	// One id per turn on every line it logs, so an admin can follow a turn
	// through a log shared by many.
	turnID := randomID(6)
	log := r.log.With("turn", turnID, "conv", q.Conversation, "msgid", q.MsgID, "stream", q.StreamID)
	ch, ok := r.channels.of(q.Channel)
	if !ok {
		log.Error("drop queued message", "err", errNoChannel(q))
		return false
	}
	started := time.Now()
	q.Mode = r.turnMode(ctx, log, q) // modecmd.go
	card := r.newCard(ch, q)
	if q.LostOnce {
		card.Notice(string(acpbridge.NoticeWarning), textServerLostRerun)
	}
	pres := ch.Present(q.turn())
	pub, cs := r.publish(ctx, card, pres, q)
	ta := newTurnAudit(r.cfg.Auditor, q, turnID)
	cs.audit = ta
	sink := auditSink{r.modeSink(ctx, q.Mode, cs, &q, ch), ta}
	ta.started(ctx)
	pres.start(pub)
	pub.Refresh() // show the turn as running at once

	turnCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	timed, cancelTimer := context.WithTimeoutCause(turnCtx, r.cfg.TurnTimeout, errTimeout)
	defer cancelTimer()
	w.setCancel(stop)
	stopReason, err := r.prompt(timed, log, w, q, sink, takeover)
	w.setCancel(nil)
	pres.ended()

	saveCtx := context.WithoutCancel(ctx)
	if ctx.Err() != nil && !endedOnItsOwn(stopReason, err) {
		if rq, ok := pres.requeuer(); ok {
			return r.requeue(saveCtx, log, q, pres, rq, pub, card, started, ta)
		}
	}
	// The turn is over: its files are in the workspace, and the message
	// never runs again.
	r.forgetAttachments(saveCtx, log, q)
	viewed, generated := cs.images.lists()
	r.sendFiles(saveCtx, log, q, pres, pub, viewed, generated)
	status := r.outcome(ctx, timed, sink, stopReason, err)
	if err != nil && status.State == cards.StateFailed {
		// The card says one sentence; what went wrong, with its paths and
		// ids, is for the admin.
		log.Warn("turn failed", "kind", acpbridge.KindOf(err).String(), "err", err)
	}
	r.ended(saveCtx, log, q, ta, outcomeOf(status, timed), status, started)
	r.footer(pub, ta)                  // usagecmd.go
	r.recordUsage(saveCtx, log, q, ta) // usagecmd.go
	pub.SetStatus(status)
	pub.Close()
	r.finish(saveCtx, pres, card)
	return false
}

// requeue hands a turn the engine's shutdown cut short back to the queue,
// when its presenter can say so on the reply; cut reports it did. A
// re-queued turn is not counted: it runs again and is counted then.
func (r *turnRunner) requeue(ctx context.Context, log *slog.Logger, q queued, pres Presentation, rq Requeuer, pub *cards.Publisher[frame], card *cards.Card, started time.Time, ta *turnAudit) (cut bool) {
	rq.Requeue(textRequeued)
	pub.Close()
	if rq.Requeued() {
		// Queued again, it needs its attachments' bytes once more.
		log.Info("turn ended", "status", "re-queued", "duration", time.Since(started).Round(time.Millisecond).String())
		r.countTokens(ctx, log, q, ta.ended(ctx, outcomeRequeued, time.Since(started)))
		return true
	}
	r.forgetAttachments(ctx, log, q)
	// The reply had finished: the card's end goes out as usual.
	card.Notice(string(acpbridge.NoticeWarning), textShutdown)
	card.SetStatus(cards.Status{State: cards.StateCancelled})
	r.ended(ctx, log, q, ta, OutcomeCancelled, card.Status(), started)
	r.finish(ctx, pres, card)
	return false
}

// ended logs the turn's end line, counts it and audits it.
func (r *turnRunner) ended(ctx context.Context, log *slog.Logger, q queued, ta *turnAudit, o Outcome, st cards.Status, started time.Time) {
	took := time.Since(started)
	log.Info("turn ended", "outcome", string(o), "duration", took.Round(time.Millisecond).String(), "status", st.String())
	r.cfg.Observer.TurnEnded(o, took)
	r.countTokens(ctx, log, q, ta.ended(ctx, string(o), took))
}

// finish hands the ended turn's card to its presenter, bounded.
func (r *turnRunner) finish(ctx context.Context, pres Presentation, card *cards.Card) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pres.finish(dctx, card)
}

// endedOnItsOwn reports whether the agent finished the turn, whatever raced
// it.
func endedOnItsOwn(stop acp.StopReason, err error) bool {
	return err == nil && stop != acp.StopReasonCancelled
}

// publish makes the publisher of q's card on pres and the sink the agent
// writes to. Frames must reach the channel even while the engine shuts
// down: the last one tells the user the turn was stopped.
func (r *turnRunner) publish(ctx context.Context, card *cards.Card, pres Presentation, q queued) (*cards.Publisher[frame], cardSink) {
	saveCtx := context.WithoutCancel(ctx)
	spoke := new(atomic.Bool)
	var timed bool // only the publisher's goroutine emits
	render := func(c *cards.Card) frame { return frame{show: pres.snapshot(c), spoke: spoke.Load()} }
	emit := func(f frame, final bool) {
		f.show(saveCtx, final)
		if f.spoke && !timed {
			timed = true
			r.cfg.Observer.FirstProgress(time.Since(time.UnixMilli(q.Received)))
		}
	}
	pub := cards.NewPublisher(card, render, emit, cards.WithInterval(r.cfg.UpdateInterval))
	return pub, cardSink{pub: pub, agentSpoke: spoke, images: &producedImages{}}
}

// outcomeOf is how a turn with card status st ended, for the Observer; a
// turn cut by agent.turn_timeout failed, and is counted apart.
func outcomeOf(st cards.Status, turnCtx context.Context) Outcome {
	switch {
	case st.State == cards.StateDone:
		return OutcomeFinished
	case st.State == cards.StateCancelled:
		return OutcomeCancelled
	case errors.Is(context.Cause(turnCtx), errTimeout):
		return OutcomeTimedOut
	}
	return OutcomeFailed
}

// prompt opens the conversation's session and runs the turn in it.
func (r *turnRunner) prompt(ctx context.Context, log *slog.Logger, w *worker, q queued, sink turnSink, takeover bool) (acp.StopReason, error) {
	sid, cwd, note, err := r.session(ctx, q, takeover)
	if err != nil {
		return "", err
	}
	if note != "" {
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: note})
	}
	r.touch(ctx, log, q)
	run := func(ctx context.Context) (acp.StopReason, error) { return r.control(ctx, log, q, sid, sink) } // controlturn.go
	if q.Action == "" {
		p := r.turnPrompt(ctx, log, q, cwd, sink)
		if chosen, err := r.store.ChosenSettings(ctx, q.Conversation); err != nil {
			log.Warn("read the conversation's model and effort; the turn runs with the project's", "err", err)
		} else {
			p.Model, p.Effort = r.turnModel(ctx, log, q, chosen[settingModel]), chosen[settingEffort]
		}
		p.Mode = q.Mode
		run = func(ctx context.Context) (acp.StopReason, error) { return r.agent.Prompt(ctx, sid, p, sink) }
		w.steering.setTarget(&steerTarget{session: sid, sink: sink})
		defer w.steering.setTarget(nil)
	}

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
			if err := r.agent.Cancel(cctx, sid); err != nil {
				log.Warn("cancel agent turn", "session", sid, "err", err)
			}
		}
	}()
	log.Info("turn started", "session", sid, "waited", time.Since(time.UnixMilli(q.Received)).Round(time.Millisecond).String())
	stop, err := run(ctx)
	close(done)
	<-cancelled
	// The agent's turn is over: what it still waits on is answered, and
	// the card says so before its final status.
	sink.settle()
	return stop, err
}

// outcome is the card status for how the turn ended, naming why it was cut
// short when the engine cut it.
func (r *turnRunner) outcome(runCtx, turnCtx context.Context, sink acpbridge.Sink, stop acp.StopReason, err error) cards.Status {
	if endedOnItsOwn(stop, err) {
		return cards.Finished(stop, nil)
	}
	cause := context.Cause(turnCtx)
	switch {
	case runCtx.Err() != nil:
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: textShutdown})
		return cards.Status{State: cards.StateCancelled}
	case errors.Is(cause, errTimeout):
		return cards.Status{State: cards.StateFailed, Detail: textTimeout(r.cfg.TurnTimeout)}
	case errors.Is(cause, errStopped):
		sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeInfo, Text: textStopNotice})
		return cards.Status{State: cards.StateCancelled}
	case errors.Is(cause, errLeaseLost):
		return cards.Status{State: cards.StateFailed, Detail: textLeaseLost}
	}
	if err != nil {
		return cards.Status{State: cards.StateFailed, Detail: failureText(err)}
	}
	return cards.Finished(stop, nil)
}

// showFailed finishes q's reply with a failed card saying detail, unless it
// is finished already.
func (r *turnRunner) showFailed(ctx context.Context, q queued, detail string) (bool, error) {
	ch, ok := r.channels.of(q.Channel)
	if !ok {
		return false, errNoChannel(q)
	}
	card := r.newCard(ch, q)
	card.SetStatus(cards.Status{State: cards.StateFailed, Detail: detail})
	rep := q.reply(ReplyFinished, "")
	rep.Card = card
	return ch.Show(ctx, rep)
}

// showLost puts on the card of a lost message that runs once more that it
// does, as the first frame of its second run will; shown is false when the
// card had finished.
func (r *turnRunner) showLost(ctx context.Context, q queued) (bool, error) {
	ch, ok := r.channels.of(q.Channel)
	if !ok {
		return false, errNoChannel(q)
	}
	card := r.newCard(ch, q)
	card.Notice(string(acpbridge.NoticeWarning), textServerLostRerun)
	rep := q.reply(ReplyRunning, "")
	rep.Card = card
	return ch.Show(ctx, rep)
}

// refuseLegacy finishes the card of a message queued under a conversation
// key from before keys were namespaced (it waited across an upgrade).
// Running it would use that key's session and workspace, which may be a
// group's and a user's at once; the card asks for the message again, which
// then runs in its own conversation.
func (r *turnRunner) refuseLegacy(ctx context.Context, q queued) {
	q.Conversation = q.conversation().Key() // the key its asker refreshes with
	if _, err := r.showFailed(ctx, q, textLegacyQueued); err != nil {
		r.log.Error("finish the card of a message queued before the upgrade", "msgid", q.MsgID, "err", err)
		return
	}
	r.log.Warn("message queued under a conversation key from before the upgrade was not run; its card asks for it again", "msgid", q.MsgID)
}

// failOrphan finishes the card of a turn whose replica stopped mid-turn: its
// lease lapsed with the turn still recorded running, and it does not run
// again (runLostFirst). The message is lost with that replica, so the card
// says so and asks for it again, unless the card is already finished (the
// holder was slow, not dead, and got there first).
func (r *turnRunner) failOrphan(ctx context.Context, conv, owner string, item []byte) {
	var q queued
	if err := json.Unmarshal(item, &q); err != nil {
		r.log.Error("drop undecodable orphaned turn", "conv", conv, "err", err)
		return
	}
	log := r.log.With("conv", conv, "msgid", q.MsgID, "stream", q.StreamID, "turn_replica", owner)
	// The card asks for the message again: it is not run, so its
	// attachments serve no turn.
	defer r.forgetAttachments(ctx, log, q)
	text := textServerLost
	if q.Rerun {
		text = textServerLostRerun
	}
	saved, err := r.showFailed(ctx, q, text)
	switch {
	case err != nil:
		log.Error("mark the turn of a stopped replica failed", "err", err)
	case saved:
		log.Warn("the replica running a turn stopped before finishing it; its card now says so")
	default:
		log.Info("the turn of a lapsed lease had already finished its card")
	}
}
