package wecomtest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// The AI bot's webhook wire format as WeCom reads and writes it, declared
// here rather than borrowed from the bot, so a field the bot names wrongly
// fails against the fake.

// ChatType is a callback's chattype.
type ChatType string

// The chat types WeCom sends.
const (
	ChatSingle ChatType = "single"
	ChatGroup  ChatType = "group"
)

// Frame is one stream frame as the bot answered it.
type Frame struct {
	ID      string `json:"id"`
	Finish  bool   `json:"finish"`
	Content string `json:"content"`
	// MsgItem is stream.msg_item, the pictures of a final frame, as its
	// JSON text (so frames stay comparable); see Images.
	MsgItem RawJSON `json:"msg_item,omitempty"`
}

// RawJSON keeps a JSON value as its text.
type RawJSON string

// UnmarshalJSON keeps the value's text ("" for null).
func (r *RawJSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = ""
		return nil
	}
	*r = RawJSON(b)
	return nil
}

// Images decodes the pictures of the frame's msg_item.
func (f Frame) Images() [][]byte {
	var items []msgItem
	_ = json.Unmarshal([]byte(f.MsgItem), &items)
	var out [][]byte
	for _, it := range items {
		data, _ := base64.StdEncoding.DecodeString(it.Image.Base64)
		out = append(out, data)
	}
	return out
}

// check applies what WeCom refuses or mangles in a stream frame.
func (f Frame) check() error {
	if f.ID == "" {
		return errors.New("stream frame: id is empty")
	}
	if len(f.Content) > StreamMaxBytes {
		return fmt.Errorf("stream frame %s: content is %d bytes, limit %d", f.ID, len(f.Content), StreamMaxBytes)
	}
	if !utf8.ValidString(f.Content) {
		return fmt.Errorf("stream frame %s: content is not valid UTF-8", f.ID)
	}
	if f.MsgItem != "" {
		var items []msgItem
		if err := json.Unmarshal([]byte(f.MsgItem), &items); err != nil {
			return fmt.Errorf("stream frame %s: msg_item is not a list of items: %w", f.ID, err)
		}
		if code, msg := checkMsgItems(items, f.Finish); code != 0 {
			return fmt.Errorf("stream frame %s: %s", f.ID, msg)
		}
	}
	return nil
}

// Text is {"content": "…"} inside a text or markdown message.
type Text struct {
	Content string `json:"content"`
}

// Reply is the decrypted passive reply a bot answered a callback with.
type Reply struct {
	MsgType      string          `json:"msgtype"`
	Stream       *Frame          `json:"stream,omitempty"`
	Text         *Text           `json:"text,omitempty"`
	TemplateCard json.RawMessage `json:"template_card,omitempty"`
}

// parseReply decodes a reply and checks that its msgtype carries its body.
func parseReply(plaintext []byte) (Reply, error) {
	var r Reply
	if err := json.Unmarshal(plaintext, &r); err != nil {
		return Reply{}, fmt.Errorf("reply is not JSON: %w", err)
	}
	switch {
	case r.MsgType == "":
		return Reply{}, errors.New("reply has no msgtype")
	case r.MsgType == "stream" && (r.Stream == nil || r.Stream.ID == ""):
		return Reply{}, errors.New("stream reply has no stream.id")
	case r.MsgType == "text" && r.Text == nil:
		return Reply{}, errors.New("text reply has no text")
	case r.MsgType == "template_card" && len(r.TemplateCard) == 0:
		return Reply{}, errors.New("template_card reply has no template_card")
	}
	return r, nil
}

// envelope is an encrypted passive reply: {encrypt, msgsignature, timestamp,
// nonce}. WeCom's samples write the timestamp as a string; a number is read
// too.
type envelope struct {
	Encrypt      string          `json:"encrypt"`
	MsgSignature string          `json:"msgsignature"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Nonce        string          `json:"nonce"`
}

func (e envelope) timestamp() (string, error) {
	var s string
	if err := json.Unmarshal(e.Timestamp, &s); err == nil {
		return s, nil
	}
	if _, err := strconv.ParseInt(string(e.Timestamp), 10, 64); err != nil {
		return "", fmt.Errorf("timestamp %s is neither a string nor an integer", e.Timestamp)
	}
	return string(e.Timestamp), nil
}

// openReply verifies and decrypts a bot's encrypted reply body, as WeCom
// does: the signature first, then the ciphertext.
func (c *crypter) openReply(body []byte) ([]byte, error) {
	var e envelope
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("reply body is not an envelope: %w", err)
	}
	if e.Encrypt == "" {
		return nil, errors.New("reply has no encrypt field")
	}
	ts, err := e.timestamp()
	if err != nil {
		return nil, err
	}
	if e.MsgSignature != c.signature(ts, e.Nonce, e.Encrypt) {
		return nil, ErrReplySignature
	}
	return c.decrypt(e.Encrypt)
}

// ResponseURLMessage is what a bot POSTs to a response_url: markdown or a
// template card.
type ResponseURLMessage struct {
	MsgType      string          `json:"msgtype"`
	Markdown     *Text           `json:"markdown,omitempty"`
	TemplateCard json.RawMessage `json:"template_card,omitempty"`
}

// apiResult is WeCom's answer to an API call.
type apiResult struct {
	ErrCode int    `json:"errcode"`
	ErrMsg  string `json:"errmsg"`
}
