package longconn

import (
	"context"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// PushName is the push channel's name in queued turns.
const PushName = Name + "_push"

// PushChannel presents turns nobody's message started (a schedule's, a
// trigger's) on the long connection. A stream is opened only in answer to
// a message, so such a turn has none: when it ends, its card goes to the
// chat with aibot_send_msg as markdown, the progress (quoted, under the
// prompt) and the answer apart, by whichever replica holds the connection
// (Connection.Send).
type PushChannel struct {
	c *Channel
}

var _ bot.Channel = (*PushChannel)(nil)

// Pusher is c's push channel; register it on the engine beside c.
func (c *Channel) Pusher() *PushChannel { return &PushChannel{c: c} }

// Name returns the constant PushName.
func (p *PushChannel) Name() string { return PushName }

// CardOptions adds nothing: Finish cuts the markdown itself.
func (p *PushChannel) CardOptions() []cards.Option { return nil }

// Show sends a finished reply (a turn lost with its replica, a refusal) to
// the chat; a waiting one (a placeholder, a queue position) is not sent, as
// each would stay in the chat.
func (p *PushChannel) Show(ctx context.Context, r bot.Reply) (bool, error) {
	if r.State != bot.ReplyFinished {
		return true, nil
	}
	text := r.Text
	if r.Card != nil {
		text = pushMarkdown(r.Card)[0]
	}
	return true, p.c.conn.Send(ctx, markdownSend(r.Conversation.ID, text))
}

// Present opens the presentation of a pushed turn: nothing until its end.
func (p *PushChannel) Present(t bot.Turn) bot.Presentation {
	return bot.Present(&pushPresenter{p: p, chat: t.Conversation.ID,
		log: p.c.log.With("conv", t.Conversation, "msgid", t.MsgID, "push", true)})
}

type pushPresenter struct {
	bot.NoSnapshots
	p    *PushChannel
	chat string
	log  *slog.Logger
}

var _ bot.Finisher = (*pushPresenter)(nil)

// Finish sends the ended card.
func (pp *pushPresenter) Finish(ctx context.Context, c *cards.Card) {
	for i, text := range pushMarkdown(c) {
		if err := pp.p.c.conn.Send(ctx, markdownSend(pp.chat, text)); err != nil {
			pp.log.Warn("pushed card not sent", "part", i+1, "err", err)
			return
		}
	}
}

func markdownSend(chat, text string) map[string]any {
	return map[string]any{"chatid": chat, "msgtype": "markdown", "markdown": map[string]any{"content": text}}
}

// pushTitleBytes bounds the prompt quoted on a pushed card: a trigger's
// prompt holds a whole request body.
const pushTitleBytes = 200

// pushMarkdown renders an ended card as aibot_send_msg markdown, at least
// one message: the first holds the prompt, the progress as a quote and the
// start of the answer below a rule, so one message shows both apart; an
// answer too long for it follows in more messages. The holder sends each
// on its own, so only the first is sure to arrive first.
func pushMarkdown(c *cards.Card) []string {
	limit := wecom.MaxStreamContentBytes
	head := "**⏰ " + cutBytes(cards.OneLine(c.Title()), pushTitleBytes) + "**"
	var progress []string
	for _, it := range c.Progress() {
		if md := strings.TrimSpace(it.Markdown); md != "" {
			progress = append(progress, md)
		}
	}
	answer := c.Markdown(limit - len(head) - 512)
	first := head
	if len(progress) > 0 {
		q := quote(strings.Join(progress, "\n\n"))
		room := limit - len(head) - 16
		if len(answer) > 0 {
			room -= len(answer[0]) + 16
		}
		if len(q) > room && room > 0 {
			q = "> …\n" + q[len(q)-cutStart(q, room-8):]
		}
		first += "\n\n" + q
	}
	if len(answer) == 0 {
		return []string{first}
	}
	first += "\n\n---\n\n" + answer[0]
	return append([]string{first}, answer[1:]...)
}

// cutStart is how many bytes of the end of s, at most n, start on a line.
func cutStart(s string, n int) int {
	if n <= 0 {
		return 0
	}
	tail := s[len(s)-n:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		return len(tail) - i - 1
	}
	return n
}

func quote(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

// cutBytes cuts s to at most n bytes on a rune boundary, marking the cut.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
