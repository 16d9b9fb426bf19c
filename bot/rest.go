package bot

import (
	"context"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

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
func (e *Engine) more(ctx context.Context, conv string) (string, error) {
	title, answer, from, ok, err := e.store.TakeRest(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/more in %s: %w", conv, err)
	}
	if !ok {
		return textNoMore, nil
	}
	card := cards.New(cards.WithStreamLimit(cards.StreamMaxBytes - restRoom))
	card.Apply(acp.UpdateAgentMessageText(answer))
	card.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))
	fr := card.Stream(from, 0)
	out := textMoreOf(clip(title, 60)) + fr.Content
	if fr.MustFinish {
		if err := e.store.SaveRest(ctx, conv, title, answer, fr.BodyEnd); err != nil {
			return "", fmt.Errorf("/more in %s: %w", conv, err)
		}
		out += "\n\n" + textMoreHint
	}
	return out, nil
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
