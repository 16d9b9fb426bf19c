package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/wecodex/wecodex/acpbridge"
)

// intake takes messages in: dedupe, access, commands, enqueue. It answers
// within a few store round trips; the turn itself runs later on whichever
// replica's scheduler takes the conversation.
type intake struct {
	cfg      Config
	store    IntakeStore
	channels *channels
	sched    *scheduler // woken for a queued message, asked to check /stop
	// approvals takes /approve and /deny.
	approvals *approvals
	// limits counts turns and tokens for Config.Limits; nil limits no one.
	limits LimitStore
	// threads lists the conversation's sessions (/sessions, /resume,
	// /fork, /name); nil: those say they are not available.
	threads ThreadStore
	// usageStore is nil when the store keeps no session usage.
	usageStore UsageStore
	log        *slog.Logger
	// agent is asked only what it can do (controlcmd.go); steers hands a
	// message to a running turn, nil when the store cannot.
	agent  acpbridge.Agent
	steers SteerStore
}

// Receipt is what intake did with a message.
type Receipt struct {
	// Reply is what intake showed on the message's reply; Reply.To.Stream
	// is always set.
	Reply Reply
	// Current is set when the reply may show something newer than Reply
	// (the message is a repeat of one received before, or a turn took it
	// already): a channel that answers synchronously answers with what the
	// reply shows now, and with Reply.Text when it shows nothing yet.
	Current bool
}

// queued is a message waiting in a conversation's queue, as stored in Redis.
type queued struct {
	MsgID    string `json:"msgid"`
	StreamID string `json:"stream"`
	// Conversation is the conversation's Key, Kind its Kind and Group its
	// Group; conversation() reads them back. A previous version reads the
	// key and the kind too (its chat type), so they keep their names.
	Conversation string `json:"conv"`
	Kind         string `json:"chat"`
	Group        *bool  `json:"group,omitempty"`
	Member       string `json:"member,omitempty"`
	User         string `json:"user"`
	UserName     string `json:"user_name,omitempty"`
	Text         string `json:"text"`
	ReplyURL     string `json:"reply_url,omitempty"`
	// Channel names the channel to present the turn on; "" for a message
	// queued before channels were named.
	Channel  string `json:"channel,omitempty"`
	ReplyRef string `json:"reply_ref,omitempty"`
	// Received (unix ms) is when intake accepted the message.
	Received int64 `json:"received"`
	// Quote is the text of the message this one quotes (see promptText).
	Quote string `json:"quote,omitempty"`
	// Attachments are the message's files; their bytes wait in the store
	// (see keepAttachments).
	Attachments []queuedAttachment `json:"attachments,omitempty"`
	// Project is a pushed turn's own project (Pushed.Project), which
	// overrides the conversation's; "" for a message.
	Project string `json:"project,omitempty"`
	// Action, when set, is the session control the turn runs instead of
	// a prompt of Text (controlcmd.go).
	Action string `json:"action,omitempty"`
	// Rerun is a pushed turn's RerunIfLost: a replica that finds it
	// orphaned pushes it once more.
	Rerun bool `json:"rerun,omitempty"`
	// Mode is a schedule's or trigger's permission mode; "" runs the turn
	// in the conversation's (/mode).
	Mode acpbridge.Mode `json:"mode,omitempty"`
	// Pushed marks a schedule's or trigger's turn: when its replica dies,
	// Rerun decides whether it runs again, not agent.rerun_orphaned.
	Pushed bool `json:"pushed,omitempty"`
	// LostOnce marks a message's second run, after the replica running it
	// died (agent.rerun_orphaned: once): a second death is final.
	LostOnce bool `json:"lost_once,omitempty"`
}

// conversation is the conversation q was queued in.
func (q queued) conversation() Conversation {
	c, _ := conversationOf(q.Kind, q.Member, q.Conversation, q.Group)
	return c
}

// namespaced reports whether q's key is its conversation's Key. Keys before
// that were bare user or chat ids, which cannot tell a user from a group
// with the same id.
func (q queued) namespaced() bool {
	_, ok := conversationOf(q.Kind, q.Member, q.Conversation, q.Group)
	return ok
}

func (q queued) turn() Turn {
	return Turn{
		MsgID: q.MsgID, Conversation: q.conversation(), User: q.User, Text: q.Text,
		To: ReplyTo{Stream: q.StreamID, URL: q.ReplyURL, Ref: q.ReplyRef}, Received: q.Received,
	}
}

func (q queued) reply(state ReplyState, text string) Reply {
	t := q.turn()
	return Reply{Conversation: t.Conversation, User: t.User, To: t.To, State: state, Text: text}
}

// receive handles one user message and returns what its reply shows: a
// thinking placeholder, a queue position, a command's output, or a refusal.
// A message whose ID was seen before returns the same reply; it never starts
// a second turn.
func (in *intake) receive(ctx context.Context, m Message) (Receipt, error) {
	if m.ID == "" || m.User == "" {
		return Receipt{}, errors.New("receive message: it has no id or no user")
	}
	m.Conversation = in.perUser(m)
	if err := m.Conversation.valid(); err != nil {
		return Receipt{}, fmt.Errorf("receive message %s: %w", m.ID, err)
	}
	ch, ok := in.channels.of(m.Channel)
	if !ok {
		return Receipt{}, fmt.Errorf("receive message %s: no channel named %q is registered", m.ID, m.Channel)
	}
	m.Channel = ch.Name()
	// The claim is scoped to the conversation and the sender: someone else's
	// message id (a repeat, a guess) is a new message of theirs, never a
	// way to read the stream the first one started.
	m.Reply.Stream = streamOf(m)
	log := in.log.With("msgid", m.ID, "conv", m.Conversation.Key(), "user", m.User, "stream", m.Reply.Stream, "channel", m.Channel)
	text := strings.TrimSpace(m.Text)
	m.Quote = strings.TrimSpace(m.Quote)
	cmd, isCmd := parseCommand(text)
	steer, isCmd := in.controlOf(&m, &text, cmd, isCmd) // controlcmd.go
	var lim refusal
	if in.cfg.Access.Allowed(m) && !isCmd && runnable(m, text) {
		line, limit, taken := in.limited(ctx, log, m)
		if line == "" {
			return in.queueOrSteer(ctx, log, ch, m, text, taken, steer)
		}
		lim = refusal{line: line, reason: limit}
	}
	recorded, claimed, err := in.store.ClaimMessage(ctx, m.Conversation.Key(), m.User, m.ID, m.Reply.Stream)
	if err != nil {
		return Receipt{}, fmt.Errorf("dedupe message %s: %w", m.ID, err)
	}
	if !claimed {
		return repeated(m, recorded), nil
	}
	in.auditMessage(ctx, m, text)
	var rc Receipt
	if lim.line != "" {
		rc, err = in.refuseLimited(ctx, log, ch, m, lim)
	} else {
		rc, err = in.answer(ctx, log, ch, m, text, cmd, isCmd)
	}
	if err != nil {
		// Unclaimed, the platform's retry of this delivery answers it;
		// claimed, it would find a reply that never comes.
		in.releaseClaim(ctx, log, m)
		return Receipt{}, err
	}
	return rc, nil
}

// repeated is the receipt of a message received before, on the stream its
// first delivery recorded; that delivery may still be writing its reply.
func repeated(m Message, recorded string) Receipt {
	m.Reply.Stream = recorded
	return Receipt{Reply: replyTo(m, ReplyWaiting, textThinking), Current: true}
}

// answer gives a message that is not queued its answer at once: a refusal,
// a command's output, or the note that it was empty.
func (in *intake) answer(ctx context.Context, log *slog.Logger, ch Channel, m Message, text, cmd string, isCmd bool) (Receipt, error) {
	switch {
	case in.cfg.Access.External(m) && !in.cfg.Access.AllowExternal:
		log.Info("refused: an external contact", "corp", m.Corp)
		in.auditRefused(ctx, m, RefusedExternal)
		return in.show(ctx, ch, replyTo(m, ReplyFinished, textExternal))
	case !in.cfg.Access.Allowed(m) && !(isCmd && approvalCommand(cmd) && in.decidesApprovals(m.User)):
		log.Info("refused: not on the access list")
		in.auditRefused(ctx, m, RefusedAccess)
		return in.show(ctx, ch, replyTo(m, ReplyFinished, textRefused))
	case isCmd:
		log.Info("command", "command", cmd)
		out, err := in.command(ctx, ch, m, cmd)
		if err != nil {
			return Receipt{}, err
		}
		return in.show(ctx, ch, replyTo(m, ReplyFinished, out))
	}
	if lines := problemLines(m); lines != "" {
		// Only attachments that did not arrive: nothing to run.
		log.Info("nothing to run: no attachment arrived", "attachments", len(m.Attachments))
		return in.show(ctx, ch, replyTo(m, ReplyFinished, lines))
	}
	return in.show(ctx, ch, replyTo(m, ReplyFinished, textEmpty))
}

// releaseClaim undoes the claim of a message whose answer failed. The
// callback's own deadline may be what failed it, so it gets a short one of
// its own.
func (in *intake) releaseClaim(ctx context.Context, log *slog.Logger, m Message) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), retryAttemptTimeout)
	defer cancel()
	if err := in.store.ReleaseClaim(rctx, m.Conversation.Key(), m.User, m.ID, m.Reply.Stream); err != nil {
		log.Warn("release the claim of a message whose answer failed; its redelivery will find no answer", "err", err)
	}
}

func replyTo(m Message, state ReplyState, text string) Reply {
	return Reply{Conversation: m.Conversation, User: m.User, To: m.Reply, State: state, Text: text}
}

func (in *intake) show(ctx context.Context, ch Channel, r Reply) (Receipt, error) {
	if _, err := ch.Show(ctx, r); err != nil {
		return Receipt{}, fmt.Errorf("show reply %s: %w", r.To.Stream, err)
	}
	return Receipt{Reply: r}, nil
}

// enqueue queues m's turn; counted says limited counted it, to be given
// back when it is not queued.
func (in *intake) enqueue(ctx context.Context, log *slog.Logger, ch Channel, m Message, text string, counted bool) (Receipt, error) {
	// Counted before it is queued: two replicas taking one user's messages
	// at once must not both find room for the last place.
	room, uncount, err := in.reserveBacklog(ctx, log, m)
	if m.rerun {
		// It takes the place of a turn that was let in and lost: it is no
		// new message of its sender's.
		room, uncount, err = true, func() {}, nil
	}
	if err != nil {
		return Receipt{}, err
	}
	if !room {
		if counted {
			in.returnTurn(ctx, log, m)
		}
		return in.refuseBacklog(ctx, log, ch, m, text)
	}
	// The bytes are stored first: a replica may take the turn the moment
	// it is queued.
	atts, err := in.keepAttachments(ctx, log, m)
	if err != nil {
		uncount()
		return Receipt{}, err
	}
	item, err := json.Marshal(queuedOf(m, text, atts))
	if err != nil {
		uncount()
		in.dropAttachments(ctx, log, m.Conversation.Key(), m.Reply.Stream, len(atts))
		if counted {
			in.returnTurn(ctx, log, m)
		}
		return Receipt{}, fmt.Errorf("encode queued message: %w", err)
	}
	// Claimed and queued in one step: if it fails, nothing was, and the
	// platform's retry is a first delivery again.
	recorded, claimed, pos, leased, err := in.store.ClaimAndEnqueue(ctx, m.Conversation.Key(), m.User, m.ID, m.Reply.Stream, item, in.cfg.MaxQueue)
	if err != nil || !claimed || pos == 0 {
		// Not queued under this stream: its bytes serve no turn, it waits
		// in nobody's backlog, and it is no turn of its user's.
		uncount()
		in.dropAttachments(ctx, log, m.Conversation.Key(), m.Reply.Stream, len(atts))
		if counted {
			in.returnTurn(ctx, log, m)
		}
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("enqueue message %s: %w", m.ID, err)
	}
	if !claimed {
		// Queued by an earlier delivery, which may have failed before it
		// woke the scheduler.
		in.sched.wake(m.Conversation.Key())
		return repeated(m, recorded), nil
	}
	in.auditMessage(ctx, m, text)
	if pos == 0 {
		log.Info("refused: queue full")
		in.auditRefused(ctx, m, RefusedQueueFull)
		rc, err := in.show(ctx, ch, replyTo(m, ReplyFinished, fmt.Sprintf(textQueueFull, in.cfg.MaxQueue)))
		if err != nil {
			in.releaseClaim(ctx, log, m)
		}
		return rc, err
	}
	// The placeholder follows the enqueue: a waiting reply never replaces
	// the card of a turn that took the message meanwhile.
	placeholder := replyTo(m, ReplyWaiting, textThinking)
	in.sched.wake(m.Conversation.Key())
	if leased {
		in.sched.queued(m.Conversation.Key(), pos)
	}
	placed, err := ch.Show(ctx, placeholder)
	if err != nil {
		// Queued all the same: the retry finds its stream.
		return Receipt{}, fmt.Errorf("show reply %s: %w", m.Reply.Stream, err)
	}
	ahead := pos
	if !leased {
		ahead-- // the first waiting message starts as soon as it is taken
	}
	log.Info("queued", "position", ahead)
	if ahead == 0 {
		return Receipt{Reply: placeholder, Current: !placed}, nil
	}
	r := replyTo(m, ReplyWaiting, textQueued(ahead))
	shown, err := ch.Show(ctx, r)
	if err != nil {
		return Receipt{}, fmt.Errorf("show queue position of %s: %w", m.ID, err)
	}
	// Not shown: taken already, and the reply shows the turn now.
	return Receipt{Reply: r, Current: !shown}, nil
}
