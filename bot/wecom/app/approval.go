package app

import (
	"context"
	"fmt"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// AskApproval sends the approval card (approve / always / deny) to each
// approver and to the requester. When the requester's cannot be sent the
// text commands still work, and the status line says so.
func (c *Channel) AskApproval(ctx context.Context, a bot.ApprovalAsk) string {
	text := fmt.Sprintf("reply /approve, /approve always or /deny (#%d)", a.ID)
	user := a.Conversation.ID // an app conversation is its user's
	for _, approver := range a.Approvers {
		if approver == user {
			continue // the requester's own card reaches them
		}
		if err := c.pace.wait(ctx, approver); err != nil {
			break
		}
		if _, err := c.api.sendCard(ctx, approver, wecom.ApprovalAskCard(a, wecom.AppCard)); err != nil {
			c.log.Warn("send the approval card to an approver; /pending still lists it", "approver", approver, "approval", a.ID, "err", err)
		}
	}
	if err := c.pace.wait(ctx, user); err != nil {
		return text
	}
	if _, err := c.api.sendCard(ctx, user, wecom.ApprovalAskCard(a, wecom.AppCard)); err != nil {
		c.log.Warn("send the approval card; the text commands still work", "conv", a.Conversation, "approval", a.ID, "err", err)
		return text
	}
	return "tap a button on the approval card, or " + text
}

// ApprovalDecided changes nothing: a click is answered by its passive
// reply, and the progress card says how the turn ended.
func (c *Channel) ApprovalDecided(context.Context, bot.ApprovalAsk, bot.ApprovalDecision) {}

// Decider records a click's decision; *bot.Engine implements it.
type Decider interface {
	Decide(ctx context.Context, conv bot.Conversation, user string, id int64, v bot.Verdict) (bot.Decided, error)
}

// decideClick decides the request an approval button names and returns the
// card that replaces the clicked one; ok is false for a key that is not an
// approval button's.
func decideClick(ctx context.Context, d Decider, cb Callback) (card wecom.TemplateCard, ok bool, err error) {
	click, ok := wecom.ParseApprovalKey(cb.EventKey)
	if !ok {
		return wecom.TemplateCard{}, false, nil
	}
	var decided *bot.Decided
	if click.Decides {
		r, err := d.Decide(ctx, wecom.AppChat(cb.User), cb.User, click.ID, click.Verdict)
		if err != nil {
			return wecom.TemplateCard{}, true, err
		}
		decided = &r
	}
	return wecom.ApprovalAnswerCard(click, decided, cb.TaskID, wecom.AppCard), true, nil
}
