// Package chattest is a chat channel that is not WeCom, for tests: rooms
// and direct messages in a conversation space of its own, kept in memory.
// It is built on the exported API of bot and cards alone (its import test
// says so), which is what keeps the channel seam open: adding it changed
// neither package.
package chattest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
)

// Name is the channel's name in queued messages.
const Name = "chattest"

// The channel's conversation kinds: its own space, apart from WeCom's.
const (
	KindRoom = "room" // a room many users talk in, by its id
	KindDM   = "dm"   // a direct message with one user, by their id
)

// Room is the room id.
func Room(id string) bot.Conversation { return bot.Conversation{Kind: KindRoom, ID: id, Group: true} }

// DM is the direct message with user.
func DM(user string) bot.Conversation { return bot.Conversation{Kind: KindDM, ID: user} }

// Chat is the channel. It records, in order, every reply it showed, every
// turn it started and finished and each turn's final card (see Events).
type Chat struct {
	mu      sync.Mutex
	replies map[string]bot.ReplyState // stream → the state its reply shows
	events  []event
	// shown is each conversation's latest card frame, final or not: not an
	// event (how many frames come depends on timing), but what a test can
	// wait for before it acts mid-turn (WaitForBody).
	shown   map[bot.Conversation]Frame
	changed chan struct{} // closed and replaced on every event and frame
}

// event is one line the chat recorded about a conversation.
type event struct {
	conv bot.Conversation
	line string
}

// New returns an empty chat.
func New() *Chat {
	return &Chat{replies: make(map[string]bot.ReplyState), shown: make(map[bot.Conversation]Frame), changed: make(chan struct{})}
}

var (
	_ bot.Channel = (*Chat)(nil)
	// A turn is told when it starts and handed its card when it ends.
	_ bot.Starter  = (*turn)(nil)
	_ bot.Finisher = (*turn)(nil)
)

func (c *Chat) Name() string { return Name }

// CardOptions: the chat has no byte limit of its own.
func (c *Chat) CardOptions() []cards.Option { return nil }

// Message is user's message text in conv, for Engine.Receive.
func Message(id string, conv bot.Conversation, user, text string) bot.Message {
	return bot.Message{ID: id, Conversation: conv, User: user, Text: text, Channel: Name}
}

// Show shows r on its message's reply, by the Channel rule: a waiting reply
// replaces only a waiting one (or none), any other replaces anything but a
// finished one.
func (c *Chat) Show(_ context.Context, r bot.Reply) (bool, error) {
	text := r.Text
	if r.Card != nil {
		text = render(r.Card).String()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch now := c.replies[r.To.Stream]; {
	case now == bot.ReplyFinished, r.State == bot.ReplyWaiting && now > bot.ReplyWaiting:
		return false, nil
	}
	c.replies[r.To.Stream] = r.State
	c.recordLocked(r.Conversation, "reply %s: %s", stateName(r.State), text)
	return true, nil
}

func stateName(s bot.ReplyState) string {
	switch s {
	case bot.ReplyWaiting:
		return "waiting"
	case bot.ReplyRunning:
		return "running"
	}
	return "finished"
}

// Present opens a turn's presentation.
func (c *Chat) Present(t bot.Turn) bot.Presentation {
	return bot.Present(&turn{c: c, t: t})
}

// turn presents one turn. Its snapshots are Frames; only the final one is
// recorded, since how many come before it depends on timing.
type turn struct {
	c *Chat
	t bot.Turn
}

func (p *turn) Start(card bot.CardControl) {
	var title string
	card.Do(func(c *cards.Card) { title = c.Title() })
	p.c.record(p.t.Conversation, "start: %s", title)
}

func (p *turn) Render(c *cards.Card) Frame { return render(c) }

func (p *turn) Show(_ context.Context, f Frame, final bool) {
	p.c.mu.Lock()
	defer p.c.mu.Unlock()
	p.c.shown[p.t.Conversation] = f
	if !final {
		p.c.signalLocked()
		return
	}
	p.c.replies[p.t.To.Stream] = bot.ReplyFinished
	p.c.recordLocked(p.t.Conversation, "card: %s", f)
}

func (p *turn) Finish(context.Context, *cards.Card) {
	p.c.record(p.t.Conversation, "finish")
}

// Frame is the chat's rendering of a card, made from the card's exported
// view: a renderer of its own, outside cards.
type Frame struct {
	Title    string
	Progress []string
	Body     string
	Status   string
	// Header and Footer are the card's lines above and below (cards'
	// WithHeader, SetFooter); most cards have neither.
	Header, Footer string
}

func render(c *cards.Card) Frame {
	f := Frame{Title: c.Title(), Body: c.Body(), Status: c.Status().String(), Header: c.Header(), Footer: c.Footer()}
	for _, it := range c.Progress() {
		switch it.Kind {
		case cards.ItemThought:
			f.Progress = append(f.Progress, "thought: "+it.Text)
		case cards.ItemTool:
			f.Progress = append(f.Progress, fmt.Sprintf("tool: %s (%s)", it.Title, it.Status))
		case cards.ItemNotice:
			f.Progress = append(f.Progress, it.Level+": "+it.Text)
		case cards.ItemPlan:
			f.Progress = append(f.Progress, fmt.Sprintf("plan: %d entries", len(it.Plan)))
		}
	}
	return f
}

// String is the frame on one line: title, progress, body and status, with
// the header before and the footer after when the card has them.
func (f Frame) String() string {
	parts := []string{f.Title, "[" + strings.Join(f.Progress, "; ") + "]", f.Body, f.Status}
	if f.Header != "" {
		parts = append([]string{"header: " + f.Header}, parts...)
	}
	if f.Footer != "" {
		parts = append(parts, "footer: "+f.Footer)
	}
	return strings.Join(parts, " | ")
}

func (c *Chat) record(conv bot.Conversation, format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recordLocked(conv, format, args...)
}

func (c *Chat) recordLocked(conv bot.Conversation, format string, args ...any) {
	c.events = append(c.events, event{conv: conv, line: fmt.Sprintf(format, args...)})
	c.signalLocked()
}

// signalLocked wakes every waiter.
func (c *Chat) signalLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Events returns the lines recorded so far about conv, in order.
func (c *Chat) Events(conv bot.Conversation) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, e := range c.events {
		if e.conv == conv {
			out = append(out, e.line)
		}
	}
	return out
}

// WaitFor returns conv's events once one of them equals last.
func (c *Chat) WaitFor(t testing.TB, conv bot.Conversation, last string) []string {
	t.Helper()
	return c.WaitForCount(t, conv, last, 1)
}

// WaitForCount returns conv's events once n of them equal line: the nth
// turn of a conversation has finished, say.
func (c *Chat) WaitForCount(t testing.TB, conv bot.Conversation, line string, n int) []string {
	t.Helper()
	var got []string
	c.waitUntil(t, func() bool {
		got = c.Events(conv)
		return count(got, line) >= n
	}, func() string {
		return fmt.Sprintf("chat never showed %q %d times in %s; it showed %q", line, n, conv.Key(), got)
	})
	return got
}

// WaitForBody returns conv's latest card frame once its body holds text:
// the agent's words reached the card, so a test can act mid-turn on a card
// that shows them.
func (c *Chat) WaitForBody(t testing.TB, conv bot.Conversation, text string) Frame {
	t.Helper()
	var f Frame
	c.waitUntil(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		f = c.shown[conv]
		return strings.Contains(f.Body, text)
	}, func() string {
		return fmt.Sprintf("no card of %s showed %q in its body; the latest showed %q", conv.Key(), text, f)
	})
	return f
}

// waitUntil returns once done holds, checked on every event and frame.
func (c *Chat) waitUntil(t testing.TB, done func() bool, failure func() string) {
	t.Helper()
	timeout := time.After(2 * time.Minute) // a hang guard, not a speed limit
	for {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		if done() {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatal(failure())
		}
	}
}

func count(lines []string, line string) int {
	n := 0
	for _, l := range lines {
		if l == line {
			n++
		}
	}
	return n
}
