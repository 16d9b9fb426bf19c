package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Approval button keys are "appr:<id>:<verb>"; the replacement card's only
// button has verb "done", which decides nothing when clicked again.
const (
	keyApproval = "appr:"
	verbDone    = "done"
)

var verbs = map[string]bot.Verdict{"approve": bot.VerdictApprove, "always": bot.VerdictAlways, "deny": bot.VerdictDeny}

// AskApproval sends the approval card (approve / always / deny) to the
// requester. When it cannot be sent the text commands still work, and the
// status line says so.
func (c *Channel) AskApproval(ctx context.Context, a bot.ApprovalAsk) string {
	text := fmt.Sprintf("reply /approve, /approve always or /deny (#%d)", a.ID)
	user := a.Conversation.ID // an app conversation is its user's
	if err := c.pace.wait(ctx, user); err != nil {
		return text
	}
	if _, err := c.api.sendCard(ctx, user, approvalCard(a)); err != nil {
		c.log.Warn("send the approval card; the text commands still work", "conv", a.Conversation, "approval", a.ID, "err", err)
		return text
	}
	return "tap a button on the approval card, or " + text
}

// ApprovalDecided changes nothing: a click is answered by its passive
// reply, and the progress card says how the turn ended.
func (c *Channel) ApprovalDecided(context.Context, bot.ApprovalAsk, bot.ApprovalDecision) {}

func approvalCard(a bot.ApprovalAsk) wecom.TemplateCard {
	id := strconv.FormatInt(a.ID, 10)
	key := func(verb string) string { return keyApproval + id + ":" + verb }
	return wecom.TemplateCard{
		CardType:     "button_interaction",
		Source:       &wecom.CardSource{Desc: "wecodex"},
		MainTitle:    wecom.CardMainTitle{Title: "Codex asks #" + id, Desc: "for " + a.Requester + " or an admin"},
		SubTitleText: wecom.CutRunes(a.What, 160),
		ButtonList: []wecom.CardButton{
			{Text: "Approve", Style: 1, Key: key("approve")},
			{Text: "Always", Style: 2, Key: key("always")},
			{Text: "Deny", Style: 3, Key: key("deny")},
		},
		TaskID: "wxappr_" + id + "_" + wecom.RandomHex(6),
	}
}

// Decider records a click's decision; *bot.Engine implements it.
type Decider interface {
	Decide(ctx context.Context, conv bot.Conversation, user string, id int64, v bot.Verdict) (bot.Decided, error)
}

// decideClick decides the request an approval button names and returns the
// card that replaces the clicked one; ok is false for a key that is not an
// approval button's.
func decideClick(ctx context.Context, d Decider, cb Callback) (card wecom.TemplateCard, ok bool, err error) {
	rest, isAppr := strings.CutPrefix(cb.EventKey, keyApproval)
	idText, verb, _ := strings.Cut(rest, ":")
	id, perr := strconv.ParseInt(idText, 10, 64)
	if !isAppr || perr != nil || id <= 0 {
		return wecom.TemplateCard{}, false, nil
	}
	title, text := "Decided", fmt.Sprintf("#%d was decided already.", id)
	if v, known := verbs[verb]; known {
		r, err := d.Decide(ctx, wecom.AppChat(cb.User), cb.User, id, v)
		if err != nil {
			return wecom.TemplateCard{}, true, err
		}
		title, text = wecom.ApprovalTitle(r), r.Text
	}
	return wecom.TemplateCard{
		CardType:     "button_interaction",
		MainTitle:    wecom.CardMainTitle{Title: title},
		SubTitleText: wecom.CutRunes(text, 160),
		ButtonList:   []wecom.CardButton{{Text: wecom.CutRunes(title, 10), Style: 4, Key: keyApproval + idText + ":" + verbDone}},
		TaskID:       cb.TaskID,
	}, true, nil
}
