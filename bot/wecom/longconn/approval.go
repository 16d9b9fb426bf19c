package longconn

import (
	"context"
	"fmt"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Decider records a click's decision; *bot.Engine implements it.
type Decider interface {
	Decide(ctx context.Context, conv bot.Conversation, user string, id int64, v bot.Verdict) (bot.Decided, error)
}

var _ bot.Approver = (*Channel)(nil)

// AskApproval has the approval card (approve / always / deny buttons) sent
// with aibot_send_msg to the conversation and to each approver's 1:1 chat,
// by whichever replica holds the connection (Connection.Send): a turn on any
// replica gets its cards, once. When the conversation's cannot be sent, the
// text commands still work, and the status line names only them.
func (c *Channel) AskApproval(ctx context.Context, a bot.ApprovalAsk) string {
	text := fmt.Sprintf("reply /approve, /approve always or /deny (#%d)", a.ID)
	for _, user := range a.Approvers {
		if !a.Conversation.Group && user == a.Conversation.ID {
			continue // the conversation's own card reaches them
		}
		body := map[string]any{"chatid": user, "msgtype": "template_card", "template_card": wecom.ApprovalAskCard(a, wecom.BotCard)}
		if err := c.conn.Send(ctx, body); err != nil {
			c.log.Warn("send the approval card to an approver; /pending still lists it", "approver", user, "approval", a.ID, "err", err)
		}
	}
	body := map[string]any{"chatid": a.Conversation.ID, "msgtype": "template_card", "template_card": wecom.ApprovalAskCard(a, wecom.BotCard)}
	if err := c.conn.Send(ctx, body); err != nil {
		c.log.Warn("send the approval card; the text commands still work", "conv", a.Conversation, "approval", a.ID, "err", err)
		return text
	}
	return "tap a button on the approval card, or " + text
}

// ApprovalDecided changes nothing: a click is answered on its own event, and
// the stream's card says how the request ended.
func (c *Channel) ApprovalDecided(context.Context, bot.ApprovalAsk, bot.ApprovalDecision) {}

// click decides the request a button names and answers the event with
// aibot_respond_update_msg within WeCom's 5 s: the replacement card says
// the outcome and who decided. A refusal replaces the card for the clicker
// only, so the requester keeps the buttons.
// cb is a template_card_event.
func (c *Channel) click(ctx context.Context, d Decider, cb wecom.Callback) string {
	click, ok := wecom.ParseApprovalKey(cb.Event.CardKey)
	if !ok {
		c.log.Info("card click ignored: not an approval button", "user", cb.UserID)
		return bot.CallbackRejected
	}
	conv := cb.Conversation()
	var decided *bot.Decided
	if click.Decides {
		r, err := d.Decide(ctx, conv, cb.UserID, click.ID, click.Verdict)
		if err != nil {
			c.log.Error("decide from a card click", "conv", conv, "approval", click.ID, "err", err)
			return bot.CallbackError // unanswered: WeCom keeps the buttons, and a retry can work
		}
		decided = &r
	}
	body := map[string]any{"response_type": "update_template_card", "template_card": wecom.ApprovalAnswerCard(click, decided, cb.Event.TaskID, wecom.BotCard)}
	if decided != nil && decided.Outcome == bot.NotYours && cb.ChatType == wecom.ChatGroup {
		body["userids"] = []string{cb.UserID}
	}
	if _, err := c.conn.Request(ctx, CmdUpdate, cb.ReqID, body); err != nil {
		c.log.Warn("answer a card click", "conv", conv, "approval", click.ID, "err", err)
		return bot.CallbackError
	}
	return bot.CallbackOK
}
