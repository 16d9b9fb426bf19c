package longconn

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Inbound is a callback decoded for the engine's intake: a message (Event
// empty) or one of the events the channel acts on.
type Inbound struct {
	ReqID    string // the callback's req_id: a message's carries its reply stream
	MsgID    string // dedupe key
	ChatType string // single | group
	ChatID   string // group chatid ("" in single chat)
	UserID   string
	CorpID   string // from.corpid: set for people of another company only
	Text     string // in groups without the leading @mention
	Quote    string // what the quoted message said (wecom.Content.Quote)
	// Media are the message's files, each with its own aeskey; not fetched.
	Media    []wecom.MediaRef
	MsgType  string // text, image, mixed, voice, file, video, event
	Event    string // enter_chat, template_card_event, feedback_event, … ("" for a message)
	EventKey string // template_card_event: the clicked button's key
	TaskID   string // template_card_event: the card's task_id
}

// Conversation is the conversation the callback belongs to: the group chat
// in a group, the user's 1:1 chat otherwise.
func (in Inbound) Conversation() bot.Conversation {
	return wecom.ChatOf(wecom.ChatType(in.ChatType), in.ChatID, in.UserID)
}

// ConversationChat is where aibot_send_msg reaches this conversation: the
// group's chatid, else the user.
func (in Inbound) ConversationChat() string {
	if in.ChatType == "group" {
		return in.ChatID
	}
	return in.UserID
}

// ErrIgnored marks a callback the channel drops on purpose (no sender, a
// system sender, a group message without its chatid).
var ErrIgnored = errors.New("callback ignored")

type callbackBody struct {
	MsgID    string `json:"msgid"`
	ChatID   string `json:"chatid"`
	ChatType string `json:"chattype"`
	From     struct {
		UserID string `json:"userid"`
		CorpID string `json:"corpid"`
	} `json:"from"`
	MsgType string `json:"msgtype"`
	Event   struct {
		EventType string `json:"eventtype"`
		// WeCom nests the click under its event type (WECOM-PROTOCOL.md
		// §0.1 item 1); the SDK's flat event_key does not exist.
		TemplateCard struct {
			EventKey string `json:"event_key"`
			TaskID   string `json:"task_id"`
		} `json:"template_card_event"`
	} `json:"event"`
}

// ParseCallback decodes a message or event callback.
func ParseCallback(f Frame) (Inbound, error) {
	if f.Cmd != CmdMsgCallback && f.Cmd != CmdEventCallback {
		return Inbound{}, fmt.Errorf("parse callback: unexpected cmd %q", f.Cmd)
	}
	var b callbackBody
	if err := json.Unmarshal(f.Body, &b); err != nil {
		return Inbound{}, fmt.Errorf("parse callback body: %w", err)
	}
	in := Inbound{ReqID: f.Headers.ReqID, MsgID: b.MsgID, ChatType: b.ChatType, ChatID: b.ChatID,
		UserID: b.From.UserID, CorpID: b.From.CorpID, MsgType: b.MsgType}
	if in.ChatType == "" {
		in.ChatType = "single"
	}
	if in.UserID == "" || in.UserID == "sys" || (in.ChatType == "group" && in.ChatID == "") {
		return Inbound{}, fmt.Errorf("%w: sender %q chattype %q chatid %q", ErrIgnored, in.UserID, in.ChatType, in.ChatID)
	}
	if f.Cmd == CmdEventCallback {
		in.Event = b.Event.EventType
		in.EventKey, in.TaskID = b.Event.TemplateCard.EventKey, b.Event.TemplateCard.TaskID
		return in, nil
	}
	// The content is the same JSON as the webhook's.
	c, err := wecom.ParseContent(f.Body)
	if err != nil {
		return Inbound{}, fmt.Errorf("parse message %s: %w", b.MsgID, err)
	}
	in.Text, in.Quote, in.Media = c.Text, c.Quote, c.Media
	if in.ChatType == "group" {
		in.Text = bot.StripMention(in.Text, "")
	}
	return in, nil
}
