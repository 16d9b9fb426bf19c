package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// queued is a message waiting in a conversation's queue, as stored in Redis.
type queued struct {
	MsgID        string   `json:"msgid"`
	StreamID     string   `json:"stream"`
	Conversation string   `json:"conv"`
	User         string   `json:"user"`
	Text         string   `json:"text"`
	ChatType     ChatType `json:"chat"`
	ReplyURL     string   `json:"reply_url,omitempty"`
	// Received (unix ms) starts the platform's stream window.
	Received int64 `json:"received"`
}

// owner names who may see the message's stream (see owner).
func (q queued) owner() string { return owner(q.ChatType, q.Conversation, q.User) }

// Receive handles one user message and returns, within a few store round
// trips, the stream the platform must answer with and its first frame: a
// thinking placeholder, a queue position, a command's output, or a refusal.
// The turn itself runs later on whichever replica takes the conversation.
// A message whose ID was seen before returns the same stream and its newest
// frame; it never starts a second turn.
func (e *Engine) Receive(ctx context.Context, m Message) (Frame, error) {
	if m.ID == "" || m.User == "" || (m.ChatType != ChatSingle && m.ChatType != ChatGroup) {
		return Frame{}, errors.New("receive message: it has no id, no user or no chat type (single or group)")
	}
	if want := conversationOf(m); m.Conversation != want {
		return Frame{}, fmt.Errorf("receive message %s: conversation %q, want %q (bot.ConversationKey of its chat type and id)", m.ID, m.Conversation, want)
	}
	// The claim is scoped to the conversation and the sender: someone else's
	// message id (a repeat, a guess) is a new message of theirs, never a
	// way to read the stream the first one started.
	streamID := randomID(12)
	recorded, claimed, err := e.store.ClaimMessage(ctx, m.Conversation, m.User, m.ID, streamID)
	if err != nil {
		return Frame{}, fmt.Errorf("dedupe message %s: %w", m.ID, err)
	}
	own := owner(m.ChatType, m.Conversation, m.User)
	if !claimed {
		s, ok, err := e.loadFrame(ctx, recorded)
		if err != nil {
			return Frame{}, err
		}
		if !ok {
			// The first delivery is still writing its first frame.
			return Frame{StreamID: recorded, Content: textThinking}, nil
		}
		return s.frame(recorded), nil
	}
	log := e.log.With("msgid", m.ID, "conv", m.Conversation, "user", m.User, "stream", streamID)
	if !e.cfg.Access.Allowed(m) {
		log.Info("refused: not on the access list")
		return e.saveFrame(ctx, streamID, own, frameFinished, textRefused)
	}
	text := strings.TrimSpace(m.Text)
	if cmd, ok := parseCommand(text); ok {
		log.Info("command", "command", cmd)
		return e.command(ctx, m, streamID, cmd)
	}
	if text == "" {
		return e.saveFrame(ctx, streamID, own, frameFinished, textEmpty)
	}
	return e.enqueue(ctx, log, m, streamID, own, text)
}

func (e *Engine) enqueue(ctx context.Context, log *slog.Logger, m Message, streamID, own, text string) (Frame, error) {
	item, err := json.Marshal(queued{
		MsgID: m.ID, StreamID: streamID, Conversation: m.Conversation, User: m.User,
		Text: text, ChatType: m.ChatType, ReplyURL: m.ReplyURL, Received: time.Now().UnixMilli(),
	})
	if err != nil {
		return Frame{}, fmt.Errorf("encode queued message: %w", err)
	}
	// The placeholder goes first so a refresh or a repeated callback finds a
	// frame as soon as the message can be taken.
	if _, err := e.saveFrame(ctx, streamID, own, frameWaiting, textThinking); err != nil {
		return Frame{}, err
	}
	pos, leased, err := e.store.Enqueue(ctx, m.Conversation, item, e.cfg.MaxQueue)
	if err != nil {
		return Frame{}, fmt.Errorf("enqueue message %s: %w", m.ID, err)
	}
	if pos == 0 {
		log.Info("refused: queue full")
		return e.saveFrame(ctx, streamID, own, frameFinished, fmt.Sprintf(textQueueFull, e.cfg.MaxQueue))
	}
	e.wake(m.Conversation)
	ahead := pos
	if !leased {
		ahead-- // the first waiting message starts as soon as it is taken
	}
	log.Info("queued", "position", ahead)
	if ahead == 0 {
		return Frame{StreamID: streamID, Content: textThinking}, nil
	}
	content := textQueued(ahead)
	saved, err := e.saveWaiting(ctx, streamID, own, content)
	if err != nil {
		return Frame{}, err
	}
	if !saved {
		// Taken already: answer with what the turn shows now.
		s, _, err := e.loadFrame(ctx, streamID)
		return s.frame(streamID), err
	}
	return Frame{StreamID: streamID, Content: content}, nil
}
