package wecom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/wecodex/wecodex/bot"
)

// ErrUnsupported means a well-formed callback of a msgtype wecodex does not
// handle (a location, say). It is not a request error: answer it normally.
var ErrUnsupported = errors.New("wecom: unsupported callback")

// Kind says what a callback asks of the bot.
type Kind string

const (
	// KindMessage is a user message: text, mixed, voice (as its transcript),
	// image, file or video. Its text is in Callback.Text, its files in
	// Callback.Media.
	KindMessage Kind = "message"
	// KindStreamRefresh asks for the newest frame of Callback.StreamID.
	KindStreamRefresh Kind = "stream_refresh"
	// KindEvent is an event such as enter_chat; see Callback.Event.
	KindEvent Kind = "event"
)

// ChatType is "single" (1:1) or "group".
type ChatType string

const (
	ChatSingle ChatType = "single"
	ChatGroup  ChatType = "group"
)

// Callback is one AI-bot callback, whatever its msgtype, as the webhook
// (decrypted) and the long connection (pushed) deliver it: both send the
// same JSON.
type Callback struct {
	Kind    Kind
	MsgType string // as sent: text, mixed, voice, image, file, stream, event
	MsgID   string // WeCom repeats callbacks: dedupe on this
	// ReqID is the long connection's req_id of the callback frame: a
	// message's carries its reply stream. "" on the webhook.
	ReqID       string
	AIBotID     string
	ChatID      string // set in group chats
	ChatType    ChatType
	UserID      string // from.userid
	CorpID      string // from.corpid, absent for an internal bot
	ResponseURL string // one POST within an hour; see PostResponseURL
	CreateTime  int64  // events only, Unix seconds

	// Text is the user's text: a text message's content, a mixed message's
	// text items joined by newlines, a voice message's transcript. In group
	// chats the leading @mention of the bot is removed; RawText keeps it.
	Text    string
	RawText string
	// Media are the message's files (encrypted, links alive 5 minutes, not
	// fetched yet: see Fetcher).
	Media []MediaRef
	// Quote is what a quoted message said (Content.Quote).
	Quote string

	StreamID string // KindStreamRefresh
	Event    *Event // KindEvent
}

// Event is the event part of a KindEvent callback.
type Event struct {
	Type string // eventtype: enter_chat, template_card_event, feedback_event, …
	// Detail is the object named after Type (event.<eventtype>), undecoded;
	// nil when the event has none (enter_chat).
	Detail json.RawMessage
	// CardKey and TaskID are a template_card_event's: the clicked button's
	// key and the card's task_id. WeCom nests them under the event's type
	// (WECOM-PROTOCOL.md §0.1 item 1); the SDK's flat event_key does not
	// exist.
	CardKey, TaskID string
}

// Conversation is the conversation a callback belongs to: the group chat
// for group messages, the user for 1:1 chats.
func (c Callback) Conversation() bot.Conversation { return ChatOf(c.ChatType, c.ChatID, c.UserID) }

// DecodeCallback reads the parts of a callback both AI-bot channels share
// (ids, chat, sender, response_url, the event) without checking them: each
// channel has its own rules for what it takes (ParseCallback is the
// webhook's). A message's content is read by ReadContent.
func DecodeCallback(plaintext []byte) (Callback, error) {
	w, err := decodeWire(plaintext)
	if err != nil {
		return Callback{}, err
	}
	cb := w.common()
	cb.Event = eventOf(w.Event)
	return cb, nil
}

// ReadContent reads a user message's content into c, which becomes a
// KindMessage: its text (in groups without the leading @mention of the bot;
// RawText keeps it), its files and its quote. A msgtype wecodex does not
// handle yields an error wrapping ErrUnsupported.
func (c *Callback) ReadContent(plaintext []byte) error {
	content, err := ParseContent(plaintext)
	if err != nil {
		return err
	}
	c.Kind = KindMessage
	c.RawText, c.Media, c.Quote = content.Text, content.Media, content.Quote
	c.Text = c.RawText
	if c.ChatType == ChatGroup {
		c.Text = bot.StripMention(c.RawText, "")
	}
	return nil
}

// wireCallback is the envelope of a decrypted callback as WeCom sends it;
// a message's content is read by ParseContent.
type wireCallback struct {
	MsgID      string `json:"msgid"`
	CreateTime int64  `json:"create_time"`
	AIBotID    string `json:"aibotid"`
	ChatID     string `json:"chatid"`
	ChatType   string `json:"chattype"`
	From       struct {
		UserID string `json:"userid"`
		CorpID string `json:"corpid"`
	} `json:"from"`
	ResponseURL string `json:"response_url"`
	MsgType     string `json:"msgtype"`
	Stream      *struct {
		ID string `json:"id"`
	} `json:"stream"`
	Event map[string]json.RawMessage `json:"event"`
}

// maxEchoed bounds how much of a field's value an error (and so a
// rejection's log line) repeats: enough to recognise a wrong value, never a
// whole decrypted body smuggled into it.
const maxEchoed = 32

// echo quotes a value for an error message, cut to maxEchoed bytes (on a
// rune boundary) with its full length named when longer.
func echo(v string) string {
	if len(v) <= maxEchoed {
		return strconv.Quote(v)
	}
	n := maxEchoed
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return strconv.Quote(v[:n]) + "… (" + strconv.Itoa(len(v)) + " bytes)"
}

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
}

// ParseCallback decodes a decrypted AI-bot callback. Malformed input yields an
// error wrapping ErrMalformed that names the missing or wrong field. A
// well-formed callback of an unhandled msgtype yields ErrUnsupported together
// with a Callback whose common fields (ids, chat, user, response_url) are set.
func ParseCallback(plaintext []byte) (Callback, error) {
	w, err := decodeWire(plaintext)
	if err != nil {
		return Callback{}, err
	}
	if w.MsgType == "" {
		return Callback{}, malformed("msgtype is missing")
	}
	if w.AIBotID == "" {
		return Callback{}, malformed("aibotid is missing")
	}
	cb := w.common()
	switch cb.ChatType {
	case ChatSingle, ChatGroup:
	case "":
		if w.MsgType != "stream" {
			return Callback{}, malformed("chattype is missing")
		}
	default:
		return Callback{}, malformed("chattype %s is neither single nor group", echo(w.ChatType))
	}
	if cb.ChatType == ChatGroup && cb.ChatID == "" {
		return Callback{}, malformed("chatid is missing in a group chat")
	}

	switch w.MsgType {
	case "stream":
		if w.Stream == nil || w.Stream.ID == "" {
			return Callback{}, malformed("stream.id is missing in a stream refresh")
		}
		cb.Kind = KindStreamRefresh
		cb.StreamID = w.Stream.ID
		return cb, nil
	case "event":
		ev, err := parseEvent(w.Event)
		if err != nil {
			return Callback{}, err
		}
		if cb.MsgID == "" {
			return Callback{}, malformed("msgid is missing")
		}
		cb.Kind = KindEvent
		cb.Event = ev
		return cb, nil
	}

	// Everything else is a user message.
	if cb.MsgID == "" {
		return Callback{}, malformed("msgid is missing")
	}
	if cb.UserID == "" {
		return Callback{}, malformed("from.userid is missing")
	}
	err = cb.ReadContent(plaintext)
	if errors.Is(err, ErrUnsupported) {
		return cb, err
	}
	if err != nil {
		return Callback{}, err
	}
	return cb, nil
}

func decodeWire(plaintext []byte) (wireCallback, error) {
	var w wireCallback
	dec := json.NewDecoder(bytes.NewReader(plaintext))
	if err := dec.Decode(&w); err != nil {
		return wireCallback{}, malformed("callback is not a JSON object: %v", err)
	}
	if dec.More() {
		return wireCallback{}, malformed("callback has data after its JSON object")
	}
	return w, nil
}

func (w wireCallback) common() Callback {
	return Callback{
		MsgType:     w.MsgType,
		MsgID:       w.MsgID,
		AIBotID:     w.AIBotID,
		ChatID:      w.ChatID,
		ChatType:    ChatType(w.ChatType),
		UserID:      w.From.UserID,
		CorpID:      w.From.CorpID,
		ResponseURL: w.ResponseURL,
		CreateTime:  w.CreateTime,
	}
}

func parseEvent(ev map[string]json.RawMessage) (*Event, error) {
	if ev == nil {
		return nil, malformed("event is missing in an event callback")
	}
	out := eventOf(ev)
	if out == nil {
		return nil, malformed("event.eventtype is missing or not a string")
	}
	return out, nil
}

// eventOf is the event of a callback, nil without an eventtype.
func eventOf(ev map[string]json.RawMessage) *Event {
	var typ string
	if raw, ok := ev["eventtype"]; !ok || json.Unmarshal(raw, &typ) != nil || typ == "" {
		return nil
	}
	out := &Event{Type: typ}
	if d, ok := ev[typ]; ok && string(d) != "null" {
		out.Detail = d
	}
	if typ == "template_card_event" && out.Detail != nil {
		var click struct {
			EventKey string `json:"event_key"`
			TaskID   string `json:"task_id"`
		}
		if json.Unmarshal(out.Detail, &click) == nil {
			out.CardKey, out.TaskID = click.EventKey, click.TaskID
		}
	}
	return out
}
