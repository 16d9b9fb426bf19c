package webhook

import (
	"context"
	"fmt"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// A stored frame is its stream's state, its owner and its content, each a
// field of the store's frame record. The state lets a queue-position update
// replace a frame only while its message is still waiting, so it can never
// overwrite a turn's progress. The owner (see owner) is checked on every
// platform refresh, so a stream's frames are answered only to the
// conversation, and in a 1:1 chat the user, that started it.
type frameState string

const (
	frameWaiting  frameState = "waiting"
	frameRunning  frameState = "running"
	frameFinished frameState = "finished"
)

// Frame is the newest state of one reply stream: what WeCom shows for the
// stream id right now. Content is cumulative markdown (each frame replaces
// the previous one). Finish is true once the stream will not change again.
type Frame struct {
	StreamID string
	Content  string
	Finish   bool
	// Items are the pictures a finished frame shows (stream.msg_item).
	Items wecom.MsgItems
}

// storedFrame is a frame as the store keeps it.
type storedFrame struct {
	state   frameState
	owner   frameOwner
	content string
}

func (s storedFrame) frame(streamID string) Frame {
	return Frame{StreamID: streamID, Content: s.content, Finish: s.state == frameFinished}
}

// frameOwner is who may see a stream's frames: the conversation, and in a
// 1:1 chat also its user ("" in a group).
type frameOwner struct{ conversation, user string }

// owner is the frameOwner of a message or a refresh (in a 1:1 chat the key
// already names the user; saying it again keeps the rule true whatever a
// channel puts in the key).
func owner(c bot.Conversation, user string) frameOwner {
	if c.Group {
		// A member's own session in a group (group_sessions: per_user)
		// answers in the group all the same, and WeCom's refresh names
		// only the chat.
		c.Member = ""
		return frameOwner{conversation: c.Key()}
	}
	return frameOwner{conversation: c.Key(), user: user}
}

// Asker is who asks for a stream's newest frame: the conversation and user
// a platform refresh comes from, as the channel parsed them (the same way as
// for a Message).
type Asker struct {
	Conversation bot.Conversation
	User         string
}

// Frame returns the newest frame of a reply stream from the shared store, so
// any replica answers a platform refresh. ok is false for a stream nobody
// knows, and for a stream another conversation or user owns: the asker
// learns nothing of it, not even that it exists.
func (c *Channel) Frame(ctx context.Context, streamID string, from Asker) (Frame, bool, error) {
	s, ok, err := c.loadFrame(ctx, streamID)
	if err != nil {
		return Frame{StreamID: streamID}, false, err
	}
	if !ok {
		return c.missingFrame(ctx, streamID, from) // see lostframe.go
	}
	if s.owner != owner(from.Conversation, from.User) {
		c.log.Info("refresh of a stream owned by another conversation or user refused", "stream", streamID, "conv", from.Conversation, "user", from.User)
		return Frame{StreamID: streamID}, false, nil
	}
	f := s.frame(streamID)
	if f.Finish {
		items, err := c.store.FrameItems(ctx, streamID)
		if err != nil {
			return Frame{StreamID: streamID}, false, fmt.Errorf("load frame of stream %s: %w", streamID, err)
		}
		f.Items = wecom.MsgItems(items)
	}
	return f, true, nil
}

// loadFrame reads a stream's frame for the engine itself; ok is false when
// there is none. While a rolling deploy runs the release before this one
// beside it, that release's frame of the stream counts too (newerOf).
func (c *Channel) loadFrame(ctx context.Context, streamID string) (storedFrame, bool, error) {
	if both, ok := c.store.(bothFramesLoader); ok {
		state, own, user, content, ok, b, legacyOK, err := both.LoadFrameAndLegacy(ctx, streamID)
		if err != nil {
			return storedFrame{}, false, fmt.Errorf("load frame of stream %s: %w", streamID, err)
		}
		return withLegacy(storedFrame{state: frameState(state), owner: frameOwner{own, user}, content: content}, ok, b, legacyOK)
	}
	state, own, user, content, ok, err := c.store.LoadFrame(ctx, streamID)
	if err != nil {
		return storedFrame{}, false, fmt.Errorf("load frame of stream %s: %w", streamID, err)
	}
	cur := storedFrame{state: frameState(state), owner: frameOwner{own, user}, content: content}
	if ok && cur.state == frameFinished {
		return cur, true, nil // nothing replaces a finished frame
	}
	b, legacyOK, err := c.store.LegacyFrame(ctx, streamID)
	if err != nil {
		return storedFrame{}, false, fmt.Errorf("load frame of stream %s: %w", streamID, err)
	}
	return withLegacy(cur, ok, b, legacyOK)
}

// bothFramesLoader is a Store that reads a stream's frame and the previous
// release's in one round trip (store.Webhook): what a refresh and a
// repeated callback cost.
type bothFramesLoader interface {
	LoadFrameAndLegacy(ctx context.Context, streamID string) (state, owner, user, content string, ok bool, legacy []byte, legacyOK bool, err error)
}

// withLegacy is the frame a stream shows given its own (cur, ok) and the
// previous release's (b, legacyOK).
func withLegacy(cur storedFrame, ok bool, b []byte, legacyOK bool) (storedFrame, bool, error) {
	if ok && cur.state == frameFinished {
		return cur, true, nil // nothing replaces a finished frame
	}
	if legacy, decoded := decodeLegacyFrame(b); legacyOK && decoded {
		if !ok {
			return legacy, true, nil
		}
		return newerOf(cur, legacy), true, nil
	}
	return cur, ok, nil
}

// saveTurnFrame writes a frame of a turn unless the stream is finished: a
// finished frame is the last word, whether the turn's own or the failure
// another replica wrote when this turn's lease lapsed, so a late write from a
// holder that lost its lease can never replace it.
func (c *Channel) saveTurnFrame(ctx context.Context, streamID string, own frameOwner, state frameState, content string) (bool, error) {
	ok, err := c.store.SaveFrameUnless(ctx, streamID, string(frameFinished), string(state), own.conversation, own.user, content)
	if err != nil {
		return false, fmt.Errorf("save frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}

// saveWaiting replaces a waiting frame (queue position) unless the message has
// started meanwhile.
func (c *Channel) saveWaiting(ctx context.Context, streamID string, own frameOwner, content string) (bool, error) {
	ok, err := c.store.SaveFrameIf(ctx, streamID, string(frameWaiting), string(frameWaiting), own.conversation, own.user, content)
	if err != nil {
		return false, fmt.Errorf("save waiting frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}

// saveFinalFrame writes a turn's finished frame with its pictures, in one
// step, unless the stream is finished already (see saveTurnFrame).
func (c *Channel) saveFinalFrame(ctx context.Context, streamID string, own frameOwner, content string, items wecom.MsgItems) (bool, error) {
	ok, err := c.store.SaveFrameItemsUnless(ctx, streamID, string(frameFinished), string(frameFinished), own.conversation, own.user, content, string(items))
	if err != nil {
		return false, fmt.Errorf("save frame of stream %s: %w", streamID, err)
	}
	return ok, nil
}
