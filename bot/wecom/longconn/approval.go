package longconn

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Decider records a click's decision; *bot.Engine implements it.
type Decider interface {
	Decide(ctx context.Context, conv bot.Conversation, user string, id int64, v bot.Verdict) (bot.Decided, error)
}

var _ bot.Approver = (*Channel)(nil)

// Button keys are "appr:<id>:<verb>"; the replacement card's only button
// has verb "done", which decides nothing when clicked again.
const (
	keyPrefix = "appr:"
	verbDone  = "done"
)

var verbs = map[string]bot.Verdict{"approve": bot.VerdictApprove, "always": bot.VerdictAlways, "deny": bot.VerdictDeny}

// AskApproval has the approval card (approve / always / deny buttons) sent
// to the conversation with aibot_send_msg, by whichever replica holds the
// connection (Connection.Send): a turn on any replica gets its card, once.
// When it cannot be recorded, the card's text commands still work, and the
// status line names only them.
func (c *Channel) AskApproval(ctx context.Context, a bot.ApprovalAsk) string {
	text := fmt.Sprintf("reply /approve, /approve always or /deny (#%d)", a.ID)
	body := map[string]any{"chatid": a.Conversation.ID, "msgtype": "template_card", "template_card": askCard(a)}
	if err := c.conn.Send(ctx, body); err != nil {
		c.log.Warn("send the approval card; the text commands still work", "conv", a.Conversation, "approval", a.ID, "err", err)
		return text
	}
	return "tap a button on the approval card, or " + text
}

// ApprovalDecided changes nothing: a click is answered on its own event, and
// the stream's card says how the request ended.
func (c *Channel) ApprovalDecided(context.Context, bot.ApprovalAsk, bot.ApprovalDecision) {}

func askCard(a bot.ApprovalAsk) map[string]any {
	id := strconv.FormatInt(a.ID, 10)
	key := func(verb string) string { return keyPrefix + id + ":" + verb }
	return map[string]any{
		"card_type":      "button_interaction",
		"source":         map[string]any{"desc": "wecodex"},
		"main_title":     map[string]any{"title": "Codex asks #" + id, "desc": "for " + a.Requester + " or an admin"},
		"sub_title_text": wecom.CutRunes(a.What, 112),
		"button_list": []map[string]any{
			{"text": "Approve", "style": 1, "key": key("approve")},
			{"text": "Always", "style": 2, "key": key("always")},
			{"text": "Deny", "style": 3, "key": key("deny")},
		},
		"task_id": "wxappr_" + id + "_" + wecom.RandomHex(6),
	}
}

// click decides the request a button names and answers the event with
// aibot_respond_update_msg within WeCom's 5 s: the replacement card says
// the outcome and who decided. A refusal replaces the card for the clicker
// only, so the requester keeps the buttons.
func (c *Channel) click(ctx context.Context, d Decider, cb Inbound) string {
	rest, ok := strings.CutPrefix(cb.EventKey, keyPrefix)
	idText, verb, _ := strings.Cut(rest, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || id <= 0 {
		c.log.Info("card click ignored: not an approval button", "user", cb.UserID)
		return bot.CallbackRejected
	}
	conv := cb.Conversation()
	title, text, onlyClicker := "Decided", fmt.Sprintf("#%d was decided already.", id), false
	if v, known := verbs[verb]; known {
		r, err := d.Decide(ctx, conv, cb.UserID, id, v)
		if err != nil {
			c.log.Error("decide from a card click", "conv", conv, "approval", id, "err", err)
			return bot.CallbackError // unanswered: WeCom keeps the buttons, and a retry can work
		}
		title, text, onlyClicker = wecom.ApprovalTitle(r), r.Text, r.Outcome == bot.NotYours
	}
	card := map[string]any{
		"card_type":      "button_interaction",
		"main_title":     map[string]any{"title": title},
		"sub_title_text": wecom.CutRunes(text, 112),
		"button_list":    []map[string]any{{"text": title, "style": 4, "key": keyPrefix + idText + ":" + verbDone}},
		"task_id":        cb.TaskID,
	}
	if onlyClicker {
		card["button_list"] = []map[string]any{{"text": "OK", "style": 4, "key": keyPrefix + idText + ":" + verbDone}}
	}
	body := map[string]any{"response_type": "update_template_card", "template_card": card}
	if onlyClicker && cb.ChatType == "group" {
		body["userids"] = []string{cb.UserID}
	}
	if _, err := c.conn.Request(ctx, CmdUpdate, cb.ReqID, body); err != nil {
		c.log.Warn("answer a card click", "conv", conv, "approval", id, "err", err)
		return bot.CallbackError
	}
	return bot.CallbackOK
}
