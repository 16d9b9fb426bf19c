package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// Session controls (issue 26 items 5 and 6): /review, /compact and /undo
// are queued like a message and run as the conversation's next turn, on
// whichever replica takes it, with a card of their own; /steer (and a
// plain message under agent.busy: steer) is added to the running turn on
// the replica that runs it. Each needs the agent to offer it: the
// interfaces below, checked by type assertion (acpbridge/codex has them
// all; an external ACP agent none).

// Reviewer runs the agent's own code review of the session's workspace
// as one turn streamed into sink; instructions, when set, say what to
// review instead of the uncommitted changes.
type Reviewer interface {
	Review(ctx context.Context, id acp.SessionId, instructions string, sink acpbridge.Sink) (acp.StopReason, error)
}

// Compacter compacts the session's history in a turn of its own.
type Compacter interface {
	Compact(ctx context.Context, id acp.SessionId, sink acpbridge.Sink) (acp.StopReason, error)
}

// Undoer reverts the session's last turn, its files where it can.
type Undoer interface {
	Undo(ctx context.Context, id acp.SessionId) (acpbridge.Undone, error)
}

// Steerer adds text to the session's running turn; it fails when no turn
// of the session runs in this process.
type Steerer interface {
	Steer(ctx context.Context, id acp.SessionId, text string) error
}

// SteerStore hands a message to the replica running a conversation's turn
// (store.Queue has it; a store without it steers nothing, and every
// message queues).
type SteerStore interface {
	// Steer keeps item for conv's running turn and announces it; running
	// is false, and nothing is kept, when no turn holds the lease.
	Steer(ctx context.Context, conv string, item []byte) (running bool, err error)
	// TakeSteers returns and forgets what waits for conv's running turn.
	TakeSteers(ctx context.Context, conv string) ([][]byte, error)
	// WatchSteers calls fn with the conversation of every steer announced,
	// until ctx ends; ready is called once the subscription is live.
	WatchSteers(ctx context.Context, ready func(), fn func(conv string)) error
}

// What a plain message sent while a turn runs does (Config.Busy).
const (
	BusyQueue = "queue"
	BusySteer = "steer"
)

// Actions a queued item runs instead of a prompt.
const (
	actionReview  = "review"
	actionCompact = "compact"
	actionUndo    = "undo"
	// actionSteer is no queued action: it names steering for agentCan.
	actionSteer = "steer"
)

// controlActions are the commands that queue a turn, by the action it
// runs.
var controlActions = map[string]string{"/review": actionReview, "/compact": actionCompact, "/undo": actionUndo}

// agentOffers is a /help filter: the control's line shows where the agent
// can do it.
func agentOffers(action string) func(in *intake) bool {
	return func(in *intake) bool {
		return agentCan(in.agent, action) && (action != actionSteer || in.steers != nil)
	}
}

// runControl answers a session control that runs no turn (the others
// never reach the command table: controlOf).
func runControl(_ context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	return in.controlAnswer(m, word), nil
}

// can reports whether the agent offers action (or steering).
func agentCan(agent acpbridge.Agent, action string) bool {
	var ok bool
	switch action {
	case actionReview:
		_, ok = agent.(Reviewer)
	case actionCompact:
		_, ok = agent.(Compacter)
	case actionUndo:
		_, ok = agent.(Undoer)
	case actionSteer:
		_, ok = agent.(Steerer)
	}
	return ok
}

// controlOf is what a message does in place of a command's answer: the
// action its queued turn runs, or steer (its text is for the running
// turn). It leaves m and text as they are for any other message, and for a
// control the agent cannot do, whose answer then says so.
func (in *intake) controlOf(m *Message, text *string, cmd string, isCmd bool) (steer, stillCmd bool) {
	if !isCmd {
		return in.cfg.Busy == BusySteer && in.steers != nil && len(m.Attachments) == 0 && m.Quote == "", false
	}
	if action, ok := controlActions[cmd]; ok && agentCan(in.agent, action) {
		m.action = action
		return false, false
	}
	if cmd == "/steer" && in.steers != nil && agentCan(in.agent, actionSteer) {
		if rest := commandArgs(*text); rest != "" {
			*text = rest
			return true, false
		}
	}
	return false, isCmd
}

// commandArgs is a command's text after its first word.
func commandArgs(text string) string {
	_, rest, _ := strings.Cut(text, " ")
	return strings.TrimSpace(rest)
}

// controlAnswer is the answer of a session control that runs no turn: the
// agent cannot do it, or /steer came without text.
func (in *intake) controlAnswer(m Message, cmd string) string {
	if cmd == "/steer" {
		if in.steers == nil || !agentCan(in.agent, actionSteer) {
			return textCannotSteer
		}
		return textSteerUsage
	}
	in.log.Info("refused: the agent cannot do it", "conv", m.Conversation.Key(), "command", cmd)
	return fmt.Sprintf(textCannotControl, cmd)
}

// queueOrSteer queues m's turn, or, when steer is set and a turn of the
// conversation runs, hands m to that turn. A message with no turn to steer
// runs as a message of its own: the user wanted the model to read it.
func (in *intake) queueOrSteer(ctx context.Context, log *slog.Logger, ch Channel, m Message, text string, counted, steer bool) (Receipt, error) {
	if steer {
		rc, steered, err := in.steer(ctx, log, ch, m, text)
		if err != nil || steered {
			if counted {
				in.returnTurn(ctx, log, m) // it is no turn of its own
			}
			return rc, err
		}
	}
	return in.enqueue(ctx, log, ch, m, text, counted)
}

// steer hands m to the conversation's running turn; steered is false, and
// nothing was done, when no turn runs. Its reply waits until the replica
// running the turn adds it (deliverSteers), and becomes the card of a turn
// of its own when that turn ended first.
func (in *intake) steer(ctx context.Context, log *slog.Logger, ch Channel, m Message, text string) (Receipt, bool, error) {
	item, err := json.Marshal(queuedOf(m, text, nil))
	if err != nil {
		return Receipt{}, false, fmt.Errorf("encode steer of %s: %w", m.ID, err)
	}
	conv := m.Conversation.Key()
	recorded, claimed, err := in.store.ClaimMessage(ctx, conv, m.User, m.ID, m.Reply.Stream)
	if err != nil {
		return Receipt{}, false, fmt.Errorf("dedupe message %s: %w", m.ID, err)
	}
	if !claimed {
		return repeated(m, recorded), true, nil
	}
	running, err := in.steers.Steer(ctx, conv, item)
	if err != nil || !running {
		// Queued instead, it is claimed again with its item.
		in.releaseClaim(ctx, log, m)
		if err != nil {
			return Receipt{}, false, fmt.Errorf("steer message %s: %w", m.ID, err)
		}
		log.Info("no running turn to steer; queued as a message")
		return Receipt{}, false, nil
	}
	in.auditMessage(ctx, m, text)
	log.Info("steering the running turn")
	rc, err := in.show(ctx, ch, replyTo(m, ReplyWaiting, textSteering))
	return rc, true, err
}

// queuedOf is m as a queue item, its text text and its attachments' bytes
// kept as atts.
func queuedOf(m Message, text string, atts []queuedAttachment) queued {
	group := m.Conversation.Group
	return queued{
		MsgID: m.ID, StreamID: m.Reply.Stream, Conversation: m.Conversation.Key(), Kind: m.Conversation.Kind, Group: &group,
		Member: m.Conversation.Member, User: m.User, UserName: m.UserName, Text: text, Quote: m.Quote, Attachments: atts,
		ReplyURL: m.Reply.URL, Channel: m.Channel, ReplyRef: m.Reply.Ref, Action: m.action, Project: m.project, Mode: m.mode,
		Rerun: m.rerunIfLost, Pushed: m.pushed,
		Received: time.Now().UnixMilli(),
	}
}

const (
	textSteering      = "➕ Adding this to the running turn…"
	textSteered       = "➕ Added to the running turn: its card shows it."
	textSteerUsage    = "`/steer <text>` adds the text to the running turn; with no turn running it runs as a message."
	textCannotSteer   = "This agent cannot add to a running turn: send the message again once the turn is over."
	textCannotControl = "This agent cannot do `%s`."
)
