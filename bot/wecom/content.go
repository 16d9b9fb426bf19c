package wecom

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wecodex/wecodex/bot"
)

// Content is what a user message carries, the same on the webhook and the
// long connection (both send this JSON; WECOM-PROTOCOL.md §C).
type Content struct {
	// Text is the sender's own text: a text message's content, a mixed
	// message's text items joined by newlines, a voice message's transcript.
	// A group message's @mention is still in it.
	Text string
	// Media are the files to fetch, in the order the message has them.
	Media []MediaRef
	// Quote is the quoted message's text, or what it showed ("[a picture]")
	// when it had no text; "" when nothing is quoted.
	Quote string
}

type (
	wireContent struct {
		Content *string `json:"content"`
	}
	wireMedia struct {
		URL    string `json:"url"`
		AESKey string `json:"aeskey"`
	}
	wireItem struct {
		MsgType string       `json:"msgtype"`
		Text    *wireContent `json:"text"`
		Image   *wireMedia   `json:"image"`
	}
	wireMixed struct {
		MsgItem []wireItem `json:"msg_item"`
	}
	// wireMessage is the msgtype-dependent part of a message callback; a
	// quote has the same shape.
	wireMessage struct {
		MsgType string          `json:"msgtype"`
		Text    *wireContent    `json:"text"`
		Voice   *wireContent    `json:"voice"`
		Image   *wireMedia      `json:"image"`
		File    *wireMedia      `json:"file"`
		Video   *wireMedia      `json:"video"`
		Mixed   json.RawMessage `json:"mixed"`
		Quote   *wireMessage    `json:"quote"`
	}
)

// ParseContent decodes the content of a message callback body. A missing
// part the msgtype needs is an error wrapping ErrMalformed that names it; a
// msgtype wecodex does not know is ErrUnsupported.
func ParseContent(body []byte) (Content, error) {
	var w wireMessage
	if err := json.Unmarshal(body, &w); err != nil {
		return Content{}, malformed("callback is not a JSON object: %v", err)
	}
	c, err := w.content("")
	if err != nil {
		return Content{}, err
	}
	if w.Quote != nil {
		c.Quote = w.Quote.quoted()
	}
	return c, nil
}

// content reads the parts msgtype needs; at names the object in errors
// ("" for the message, "quote." for its quote).
func (w wireMessage) content(at string) (Content, error) {
	var c Content
	media := func(kind bot.AttachmentKind, field string, m *wireMedia) error {
		if m == nil || m.URL == "" {
			return malformed("%s%s.url is missing in %s message", at, field, article(w.MsgType))
		}
		c.Media = append(c.Media, MediaRef{Kind: kind, URL: m.URL, AESKey: m.AESKey})
		return nil
	}
	var err error
	switch w.MsgType {
	case "text", "voice":
		part := w.Text
		if w.MsgType == "voice" {
			part = w.Voice // WeCom sends the transcript, no audio
		}
		if part == nil || part.Content == nil {
			return Content{}, malformed("%s%s.content is missing in %s message", at, w.MsgType, article(w.MsgType))
		}
		c.Text = *part.Content
	case "image":
		err = media(bot.AttachImage, "image", w.Image)
	case "file":
		err = media(bot.AttachFile, "file", w.File)
	case "video":
		err = media(bot.AttachVideo, "video", w.Video)
	case "mixed":
		c.Text, c.Media, err = parseMixed(w.Mixed, at)
	case "":
		return Content{}, malformed("%smsgtype is missing", at)
	default:
		return Content{}, fmt.Errorf("%w: msgtype %s", ErrUnsupported, echo(w.MsgType))
	}
	return c, err
}

// quoted is what the agent is told a quoted message said: its text, and
// "[a picture]" and the like for its files, which are not fetched. A quote
// that cannot be read says nothing rather than failing the message quoting
// it.
func (w wireMessage) quoted() string {
	c, err := w.content("quote.")
	if err != nil {
		return ""
	}
	parts := []string{}
	if t := strings.TrimSpace(c.Text); t != "" {
		parts = append(parts, t)
	}
	for _, m := range c.Media {
		parts = append(parts, "[a "+noun(m.Kind)+"]")
	}
	return strings.Join(parts, "\n")
}

// parseMixed joins a mixed message's text items with newlines and collects
// its images. Some senders put the mixed object in a JSON string; both forms
// are accepted.
func parseMixed(raw json.RawMessage, at string) (string, []MediaRef, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, malformed("%smixed is missing in a mixed message", at)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", nil, malformed("%smixed is a bad JSON string: %v", at, err)
		}
		raw = json.RawMessage(s)
	}
	var m wireMixed
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", nil, malformed("%smixed is not an object with msg_item: %v", at, err)
	}
	if len(m.MsgItem) == 0 {
		return "", nil, malformed("%smixed.msg_item is empty", at)
	}
	var texts []string
	var images []MediaRef
	for i, it := range m.MsgItem {
		switch it.MsgType {
		case "text":
			if it.Text == nil || it.Text.Content == nil {
				return "", nil, malformed("%smixed.msg_item[%d].text.content is missing", at, i)
			}
			texts = append(texts, *it.Text.Content)
		case "image":
			if it.Image == nil || it.Image.URL == "" {
				return "", nil, malformed("%smixed.msg_item[%d].image.url is missing", at, i)
			}
			images = append(images, MediaRef{Kind: bot.AttachImage, URL: it.Image.URL, AESKey: it.Image.AESKey})
		case "":
			return "", nil, malformed("%smixed.msg_item[%d].msgtype is missing", at, i)
		default:
			// An item kind WeCom may add later: nothing in it we could use.
		}
	}
	return strings.Join(texts, "\n"), images, nil
}

// Prompt is the text and the quote a message runs with, once its @mention is
// gone: a quote-only message (an @mention that quotes an earlier message and
// says nothing itself) runs the quoted text, as the official plugin does; a
// command stays a command and its quote is dropped with it.
func Prompt(text, quote string, hasMedia bool) (string, string) {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "/"):
		return text, ""
	case t == "" && !hasMedia && quote != "" && !strings.HasPrefix(strings.TrimSpace(quote), "/"):
		return quote, ""
	}
	return text, quote
}

// article is "a text", "an image": for errors that name a msgtype.
func article(msgType string) string {
	if msgType != "" && strings.ContainsRune("aeiou", rune(msgType[0])) {
		return "an " + msgType
	}
	return "a " + msgType
}
