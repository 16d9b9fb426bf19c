package wecom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wecodex/wecodex/bot"
)

// ErrUnsupported means a well-formed callback of a msgtype wecodex does not
// handle (video, for one). It is not a request error: answer it normally.
var ErrUnsupported = errors.New("wecom: unsupported callback")

// Kind says what a callback asks of the bot.
type Kind string

const (
	// KindMessage is a user message: text, mixed, voice (as its transcript),
	// image or file. Its text is in Callback.Text.
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
	Text       string
	RawText    string
	ImageURLs  []string // images in image and mixed messages (encrypted files, not fetched)
	FileURL    string   // file messages (an encrypted file, not fetched)
	QuotedText string   // the text of a quoted message, when it has one

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

// ConversationKey names the conversation a callback belongs to: the group
// chat for group messages, the user for 1:1 chats. The prefixes keep a chat id
// and a user id that happen to be equal apart.
func (c Callback) ConversationKey() string {
	if c.ChatType == ChatGroup {
		return bot.ConversationKey(bot.ChatGroup, c.ChatID)
	}
	return bot.ConversationKey(bot.ChatSingle, c.UserID)
}

// wire types: the decrypted JSON as WeCom sends it.
type (
	wireContent struct {
		Content *string `json:"content"`
	}
	wireURL struct {
		URL string `json:"url"`
	}
	wireItem struct {
		MsgType string       `json:"msgtype"`
		Text    *wireContent `json:"text"`
		Image   *wireURL     `json:"image"`
	}
	wireMixed struct {
		MsgItem []wireItem `json:"msg_item"`
	}
	wireCallback struct {
		MsgID      string `json:"msgid"`
		CreateTime int64  `json:"create_time"`
		AIBotID    string `json:"aibotid"`
		ChatID     string `json:"chatid"`
		ChatType   string `json:"chattype"`
		From       struct {
			UserID string `json:"userid"`
			CorpID string `json:"corpid"`
		} `json:"from"`
		ResponseURL string          `json:"response_url"`
		MsgType     string          `json:"msgtype"`
		Text        *wireContent    `json:"text"`
		Voice       *wireContent    `json:"voice"`
		Image       *wireURL        `json:"image"`
		File        *wireURL        `json:"file"`
		Mixed       json.RawMessage `json:"mixed"`
		Quote       *struct {
			MsgType string       `json:"msgtype"`
			Text    *wireContent `json:"text"`
			Voice   *wireContent `json:"voice"`
		} `json:"quote"`
		Stream *struct {
			ID string `json:"id"`
		} `json:"stream"`
		Event map[string]json.RawMessage `json:"event"`
	}
)

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
	cb.Kind = KindMessage
	switch w.MsgType {
	case "text":
		if w.Text == nil || w.Text.Content == nil {
			return Callback{}, malformed("text.content is missing in a text message")
		}
		cb.RawText = *w.Text.Content
	case "voice":
		if w.Voice == nil || w.Voice.Content == nil {
			return Callback{}, malformed("voice.content is missing in a voice message")
		}
		cb.RawText = *w.Voice.Content
	case "image":
		if w.Image == nil || w.Image.URL == "" {
			return Callback{}, malformed("image.url is missing in an image message")
		}
		cb.ImageURLs = []string{w.Image.URL}
	case "file":
		if w.File == nil || w.File.URL == "" {
			return Callback{}, malformed("file.url is missing in a file message")
		}
		cb.FileURL = w.File.URL
	case "mixed":
		text, images, err := parseMixed(w.Mixed)
		if err != nil {
			return Callback{}, err
		}
		cb.RawText, cb.ImageURLs = text, images
	default:
		cb.Kind = ""
		return cb, fmt.Errorf("%w: msgtype %s", ErrUnsupported, echo(w.MsgType))
	}
	cb.Text = cb.RawText
	if cb.ChatType == ChatGroup {
		cb.Text = bot.StripMention(cb.RawText, "")
	}
	if q := w.Quote; q != nil {
		switch {
		case q.Text != nil && q.Text.Content != nil:
			cb.QuotedText = *q.Text.Content
		case q.Voice != nil && q.Voice.Content != nil:
			cb.QuotedText = *q.Voice.Content
		}
	}
	return cb, nil
}

// parseMixed joins a mixed message's text items with newlines and collects its
// image URLs. Some senders put the mixed object in a JSON string; both forms
// are accepted.
func parseMixed(raw json.RawMessage) (string, []string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, malformed("mixed is missing in a mixed message")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", nil, malformed("mixed is a bad JSON string: %v", err)
		}
		raw = json.RawMessage(s)
	}
	var m wireMixed
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", nil, malformed("mixed is not an object with msg_item: %v", err)
	}
	if len(m.MsgItem) == 0 {
		return "", nil, malformed("mixed.msg_item is empty")
	}
	var texts, images []string
	for i, it := range m.MsgItem {
		switch it.MsgType {
		case "text":
			if it.Text == nil || it.Text.Content == nil {
				return "", nil, malformed("mixed.msg_item[%d].text.content is missing", i)
			}
			texts = append(texts, *it.Text.Content)
		case "image":
			if it.Image == nil || it.Image.URL == "" {
				return "", nil, malformed("mixed.msg_item[%d].image.url is missing", i)
			}
			images = append(images, it.Image.URL)
		case "":
			return "", nil, malformed("mixed.msg_item[%d].msgtype is missing", i)
		default:
			// An item kind WeCom may add later: nothing in it we could use.
		}
	}
	return strings.Join(texts, "\n"), images, nil
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
