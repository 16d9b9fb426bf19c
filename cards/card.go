package cards

import (
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// ProgressStyle is how the WeCom AI-bot stream shows the progress section
// (config key cards.progress_style).
type ProgressStyle string

const (
	// ProgressThink puts progress in a leading <think>…</think> block, which
	// the WeCom client folds as a "thinking" section.
	ProgressThink ProgressStyle = "think"
	// ProgressQuote puts progress in a quoted block above the answer.
	ProgressQuote ProgressStyle = "quote"
)

// Option configures a new Card.
type Option func(*Card)

// WithProgressStyle sets how the stream renderer shows progress.
func WithProgressStyle(s ProgressStyle) Option { return func(c *Card) { c.style = s } }

// WithTitle names the turn (for instance the start of the user's prompt), for
// renderers that show one (a platform's card, the playground's HTML).
func WithTitle(title string) Option { return func(c *Card) { c.title = OneLine(toValidUTF8(title)) } }

// WithStreamLimit sets the byte cap of a stream frame: the platform's (its
// channel passes it), or a small one in tests to exercise roll-over. Without
// it a frame is never cut.
func WithStreamLimit(n int) Option { return func(c *Card) { c.streamLimit = n } }

// Card is the model of one turn: progress section, body and status.
// It is not safe for concurrent use.
type Card struct {
	style       ProgressStyle
	title       string
	header      string // WithHeader
	footer      string // SetFooter
	streamLimit int
	status      Status

	// Progress items in the order they first appeared; tool calls and the
	// plan are updated in place.
	progress    []*progressItem
	thoughts    map[string]*progressItem
	tools       map[acp.ToolCallId]*progressItem
	plan        *progressItem
	lastThought *progressItem

	body       strings.Builder
	bodyFences fenceTracker
	bodyID     string
	bodyParts  int
}

// New returns an empty running card.
func New(opts ...Option) *Card {
	c := &Card{
		style:       ProgressThink,
		streamLimit: noStreamLimit,
		thoughts:    map[string]*progressItem{},
		tools:       map[acp.ToolCallId]*progressItem{},
	}
	for _, o := range opts {
		o(c)
	}
	if c.style != ProgressQuote {
		c.style = ProgressThink
	}
	if c.streamLimit <= 0 {
		c.streamLimit = noStreamLimit
	}
	if c.streamLimit < minStreamLimit {
		c.streamLimit = minStreamLimit
	}
	return c
}

type progressItem struct {
	kind ItemKind
	text strings.Builder // thought text, or notice text

	level    string // notice
	toolKind acp.ToolKind
	title    string
	status   acp.ToolCallStatus
	entries  []acp.PlanEntry
	md       string // markdown of a tool call, plan or notice (see refresh)
}

// Apply folds one ACP session update into the card. It costs the size of the
// update: earlier text is never looked at again.
func (c *Card) Apply(u acp.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		c.appendBody(idOf(u.AgentMessageChunk.MessageId), blockText(u.AgentMessageChunk.Content))
	case u.AgentThoughtChunk != nil:
		c.appendThought(idOf(u.AgentThoughtChunk.MessageId), blockText(u.AgentThoughtChunk.Content))
	case u.ToolCall != nil:
		t := u.ToolCall
		it := c.tool(t.ToolCallId)
		it.title = OneLine(toValidUTF8(t.Title))
		it.toolKind = t.Kind
		it.status = t.Status
		it.refresh()
	case u.ToolCallUpdate != nil:
		t := u.ToolCallUpdate
		it := c.tool(t.ToolCallId)
		if t.Title != nil {
			it.title = OneLine(toValidUTF8(*t.Title))
		}
		if t.Kind != nil {
			it.toolKind = *t.Kind
		}
		if t.Status != nil {
			it.status = *t.Status
		}
		it.refresh()
	case u.Plan != nil:
		if c.plan == nil {
			c.plan = &progressItem{kind: ItemPlan}
			c.progress = append(c.progress, c.plan)
		}
		c.plan.entries = c.plan.entries[:0]
		for _, e := range u.Plan.Entries {
			e.Content = OneLine(toValidUTF8(e.Content))
			c.plan.entries = append(c.plan.entries, e)
		}
		c.plan.refresh()
	}
	// User message chunks (a replayed prompt), mode, command, config, session
	// info and usage updates are not part of what a turn's card shows.
}

// Notice adds a line to the progress section that is not agent output: a
// warning, an error, a policy decision. level is "info", "warning" or
// "error" (acpbridge.NoticeLevel values); it never reaches the body.
// A notice is one line: text it quotes (a command the model wrote, a
// warning) cannot start a line of its own that looks like the bot's.
func (c *Card) Notice(level, text string) {
	text = OneLine(toValidUTF8(text))
	if text == "" {
		return
	}
	it := &progressItem{kind: ItemNotice, level: level}
	it.text.WriteString(text)
	it.refresh()
	c.progress = append(c.progress, it)
}

// SetStatus changes the card's status.
func (c *Card) SetStatus(s Status) {
	s.Detail = toValidUTF8(s.Detail)
	c.status = s
}

// Status returns the card's status.
func (c *Card) Status() Status { return c.status }

// Title returns the title set with WithTitle.
func (c *Card) Title() string { return c.title }

// Style returns the progress style.
func (c *Card) Style() ProgressStyle { return c.style }

// Body returns the answer text so far. Agent messages follow each other
// separated by a blank line; the text only ever grows, so a byte offset into
// it stays valid for the whole turn.
func (c *Card) Body() string { return c.body.String() }

// AddSection ends the answer with a part of the card's own, after the
// agent's last message (the files the answer sent back): every renderer shows
// it as part of the body, so a continuation carries it too.
func (c *Card) AddSection(markdown string) {
	c.appendBody(sectionID, toValidUTF8(markdown))
	c.bodyID = "" // a later section is a part of its own
	c.bodyParts++
}

// sectionID is the message id of a card's own part; ACP ids are never empty
// control characters.
const sectionID = "\x00section"

// appendBody adds answer text. A chunk with a message id other than the
// current one starts a new message (as ACP defines messageId); a chunk
// without an id continues the current message.
func (c *Card) appendBody(id, text string) {
	if text == "" {
		return
	}
	if c.bodyParts == 0 || (id != "" && id != c.bodyID) {
		c.separateBody()
		c.bodyID = id
		c.bodyParts++
	}
	from := c.body.Len()
	c.body.WriteString(text)
	c.bodyFences.feed(c.body.String(), from)
}

// separateBody ends the previous message: it closes a code block the message
// left open (so the next message is not swallowed by it) and leaves a blank
// line.
func (c *Card) separateBody() {
	b := c.body.String()
	if b == "" {
		return
	}
	var sep strings.Builder
	if !strings.HasSuffix(b, "\n") {
		sep.WriteByte('\n')
	}
	if sp := c.bodyFences.open(); sp != nil {
		sep.WriteString(sp.marker)
		sep.WriteByte('\n')
	}
	if !strings.HasSuffix(b, "\n\n") || sep.Len() > 0 {
		sep.WriteByte('\n')
	}
	from := c.body.Len()
	c.body.WriteString(sep.String())
	c.bodyFences.feed(c.body.String(), from)
}

func (c *Card) appendThought(id, text string) {
	if text == "" {
		return
	}
	var it *progressItem
	switch {
	case id != "":
		it = c.thoughts[id]
		if it == nil {
			it = &progressItem{kind: ItemThought}
			c.thoughts[id] = it
			c.progress = append(c.progress, it)
		}
	default:
		if n := len(c.progress); n > 0 && c.progress[n-1].kind == ItemThought {
			it = c.progress[n-1]
		} else {
			it = &progressItem{kind: ItemThought}
			c.progress = append(c.progress, it)
		}
	}
	it.text.WriteString(text)
	c.lastThought = it
}

func (c *Card) tool(id acp.ToolCallId) *progressItem {
	it := c.tools[id]
	if it == nil {
		it = &progressItem{kind: ItemTool, title: string(id)}
		it.refresh()
		c.tools[id] = it
		c.progress = append(c.progress, it)
	}
	return it
}

func idOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// blockText is the markdown a content block contributes. Non-text blocks
// become a short reference rather than vanishing.
func blockText(b acp.ContentBlock) string {
	switch {
	case b.Text != nil:
		return toValidUTF8(b.Text.Text)
	case b.ResourceLink != nil:
		name := b.ResourceLink.Name
		if b.ResourceLink.Title != nil && *b.ResourceLink.Title != "" {
			name = *b.ResourceLink.Title
		}
		return toValidUTF8("[" + OneLine(name) + "](" + b.ResourceLink.Uri + ")")
	case b.Resource != nil:
		return "[embedded resource]"
	case b.Image != nil:
		return "[image]"
	case b.Audio != nil:
		return "[audio]"
	}
	return ""
}
