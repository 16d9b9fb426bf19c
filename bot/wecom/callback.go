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

// Callback is one decrypted AI-bot callback, whatever its msgtype.
type Callback struct {
	Kind        Kind
	MsgType     string // as sent: text, mixed, voice, image, file, stream, event
	MsgID       string // WeCom repeats callbacks: dedupe on this
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
}

// Conversation is the conversation a callback belongs to: the group chat
// for group messages, the user for 1:1 chats.
func (c Callback) Conversation() bot.Conversation { return ChatOf(c.ChatType, c.ChatID, c.UserID) }

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
	var w wireCallback
	dec := json.NewDecoder(bytes.NewReader(plaintext))
	if err := dec.Decode(&w); err != nil {
		return Callback{}, malformed("callback is not a JSON object: %v", err)
	}
	if dec.More() {
		return Callback{}, malformed("callback has data after its JSON object")
	}
	if w.MsgType == "" {
		return Callback{}, malformed("msgtype is missing")
	}
	if w.AIBotID == "" {
		return Callback{}, malformed("aibotid is missing")
	}
	cb := Callback{
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
	c, err := ParseContent(plaintext)
	if errors.Is(err, ErrUnsupported) {
		return cb, err
	}
	if err != nil {
		return Callback{}, err
	}
	cb.Kind = KindMessage
	cb.RawText, cb.Media, cb.Quote = c.Text, c.Media, c.Quote
	cb.Text = cb.RawText
	if cb.ChatType == ChatGroup {
		cb.Text = bot.StripMention(cb.RawText, "")
	}
	return cb, nil
}

func parseEvent(ev map[string]json.RawMessage) (*Event, error) {
	if ev == nil {
		return nil, malformed("event is missing in an event callback")
	}
	var typ string
	if raw, ok := ev["eventtype"]; !ok || json.Unmarshal(raw, &typ) != nil || typ == "" {
		return nil, malformed("event.eventtype is missing or not a string")
	}
	out := &Event{Type: typ}
	if d, ok := ev[typ]; ok && string(d) != "null" {
		out.Detail = d
	}
	return out, nil
}
