package playground

import (
	"slices"
	"strings"
	"sync"
)

// View is one card as the page shows it: the message sent, and the bot's
// answer rendered from the newest frame plus any response_url messages.
type View struct {
	ID       string `json:"id"` // the msgid of the message sent
	Prompt   string `json:"prompt"`
	Progress string `json:"progress"` // HTML of the <think> section
	Body     string `json:"body"`     // HTML of the answer
	Status   string `json:"status"`   // e.g. "running", "done", "failed: …"
	State    string `json:"state"`    // one of the State constants
	Seq      int64  `json:"seq"`      // grows with every change of any card
	// Buttons are the approval commands a card waiting for approval
	// offers in webhook mode.
	Buttons []Button `json:"buttons,omitempty"`
	// Cards are the button cards the bot sent about this message (long
	// connection), newest last.
	Cards []TemplateCard `json:"cards,omitempty"`
}

// answer is what the backend knows of one message and its reply.
type answer struct {
	id      string
	prompt  string
	content string // newest stream frame
	finish  bool
	framed  bool     // a frame arrived
	posts   []string // accepted response_url markdown, in arrival order
	refused int      // response_url posts WeCom would have refused
	problem string   // why the playground could not play the message
	cards   []TemplateCard
	view    View
}

// board holds every card of this playground, and wakes the pages following
// it on each change. Changes are numbered, so a page asks for what changed
// since the last number it saw and never misses or queues updates.
type board struct {
	md *HTMLRenderer
	// commands: offer a waiting card's approval commands as buttons (the
	// webhook's cards have none of their own).
	commands bool

	mu      sync.Mutex
	order   []*answer
	byID    map[string]*answer
	seq     int64
	changed chan struct{} // closed and replaced on every change
}

func newBoard() *board {
	return &board{md: NewHTMLRenderer(), byID: map[string]*answer{}, changed: make(chan struct{})}
}

// add starts a card for a message being sent.
func (b *board) add(id, prompt string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := &answer{id: id, prompt: prompt}
	b.order = append(b.order, a)
	b.byID[id] = a
	b.touch(a)
}

// update changes a card under the board's lock and publishes it.
func (b *board) update(id string, f func(a *answer)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.byID[id]
	if a == nil {
		return
	}
	f(a)
	b.touch(a)
}

// frame records a stream frame; an unchanged frame wakes nobody.
func (b *board) frame(id, content string, finish bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.byID[id]
	if a == nil || (a.framed && a.content == content && a.finish == finish) {
		return
	}
	a.content, a.finish, a.framed = content, finish, true
	b.touch(a)
}

// touch re-renders a card and wakes the pages; b.mu is held.
func (b *board) touch(a *answer) {
	b.seq++
	a.view = b.render(a)
	a.view.Seq = b.seq
	close(b.changed)
	b.changed = make(chan struct{})
}

// since returns the cards changed after seq, the newest seq, and a channel
// closed at the next change.
func (b *board) since(seq int64) ([]View, int64, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []View
	for _, a := range b.order {
		if a.view.Seq > seq {
			out = append(out, a.view)
		}
	}
	return out, b.seq, b.changed
}

// render derives a card from what WeCom's client would have: the frames and
// the response_url messages.
func (b *board) render(a *answer) View {
	v := View{ID: a.id, Prompt: a.prompt, Cards: slices.Clone(a.cards)}
	if !a.framed {
		v.State, v.Status = StateSending, "sending"
		if a.problem != "" {
			v.State, v.Status = StateFailed, "failed: "+a.problem
		}
		return v
	}
	f := seeFrame(a.content, a.finish)
	progress, state, status := f.progress, f.state, f.status
	var html strings.Builder
	html.WriteString(b.md.Markdown(f.body))
	for _, p := range a.posts {
		// A continuation is a message of its own, rendered like a frame:
		// its progress is the newer one, its body continues the answer.
		pf := seeFrame(p, true)
		if pf.progress != "" {
			progress = pf.progress
		}
		state, status = pf.state, pf.status
		html.WriteString(`<div class="continued">`)
		html.WriteString(b.md.Markdown(pf.body))
		html.WriteString("</div>\n")
	}
	if a.refused > 0 {
		html.WriteString(`<p class="note">WeCom refused a further response_url message (one is accepted per message).</p>`)
	}
	if a.problem != "" {
		state, status = StateFailed, "failed: "+a.problem
	}
	v.Progress = b.md.Markdown(progress)
	v.Body = html.String()
	v.State, v.Status = state, status
	if b.commands && state == StateWaiting {
		v.Buttons = commandButtons
	}
	return v
}
