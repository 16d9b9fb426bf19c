package webhook

import (
	"context"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cards"
)

// A turn has one reply stream and one continuation message (WeCom's
// response_url takes a single POST). An answer longer than both keeps its
// unread end in the store, and each /more shows the next part as its own
// reply, so no answer text is ever lost.

// restRoom is kept free in a /more frame for its heading and hint.
const restRoom = 512

// more renders the next unread part of the conversation's last long answer
// and keeps what is still unread after it.
func (c *Channel) more(ctx context.Context, conv string) (string, error) {
	title, answer, from, ok, err := c.store.TakeRest(ctx, conv)
	if err != nil {
		return "", err
	}
	if !ok {
		return bot.TextNoMore, nil
	}
	fr := cards.AnswerFrame(answer, from, wecom.MaxStreamContentBytes-restRoom)
	out := textMoreOf(wecom.CutRunes(title, 60)) + fr.Content
	if fr.MustFinish {
		if err := c.store.SaveRest(ctx, conv, title, answer, fr.BodyEnd); err != nil {
			return "", err
		}
		out += "\n\n" + textMoreHint
	}
	return out, nil
}
