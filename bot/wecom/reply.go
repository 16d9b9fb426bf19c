package wecom

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxStreamContentBytes is WeCom's cap on the content of one AI-bot stream
// frame (stream.content, "最长不超过20480个字节"); the channels render their
// cards within it (cards.WithStreamLimit).
const MaxStreamContentBytes = 20480

// AppMarkdownMaxBytes is the cap on a self-built app's markdown message
// (message/send, msgtype markdown: "markdown内容，最长不超过2048个字节，必须是
// utf8编码", developer.work.weixin.qq.com/document/path/90236).
const AppMarkdownMaxBytes = 2048

// StreamFrame is one answer to a message callback or stream refresh. Content is
// markdown and cumulative: each frame replaces the whole text shown. A leading
// <think>…</think> block is folded by the client as a "thinking" section.
type StreamFrame struct {
	ID      string `json:"id"`
	Finish  bool   `json:"finish"`
	Content string `json:"content"`
	// MsgItem are the pictures a final frame shows with its content.
	MsgItem MsgItems `json:"msg_item,omitempty"`
}

// Validate checks what WeCom would refuse or mangle: an empty id, content over
// MaxStreamContentBytes, content that is not UTF-8 (a byte budget cut through a
// character).
func (f StreamFrame) Validate() error {
	if f.ID == "" {
		return fmt.Errorf("stream frame: id is empty")
	}
	if len(f.Content) > MaxStreamContentBytes {
		return fmt.Errorf("stream frame %s: content is %d bytes, limit %d", f.ID, len(f.Content), MaxStreamContentBytes)
	}
	if !utf8.ValidString(f.Content) {
		return fmt.Errorf("stream frame %s: content is not valid UTF-8", f.ID)
	}
	return nil
}

// Reply is the decrypted JSON of a passive reply. Bots send msgtype "stream"
// to messages and refreshes, "text" or "template_card" to enter_chat events.
type Reply struct {
	MsgType      string          `json:"msgtype"`
	Stream       *StreamFrame    `json:"stream,omitempty"`
	Text         *TextBody       `json:"text,omitempty"`
	TemplateCard json.RawMessage `json:"template_card,omitempty"`
}

// TextBody is {"content": "…"} inside a text message.
type TextBody struct {
	Content string `json:"content"`
}

// StreamReply builds the plaintext of a stream reply after validating f.
func StreamReply(f StreamFrame) ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(Reply{MsgType: "stream", Stream: &f})
	if err != nil {
		return nil, fmt.Errorf("marshal stream reply: %w", err)
	}
	return b, nil
}

// ParseReply decodes a decrypted passive reply; a stream reply must carry a
// stream with an id.
func ParseReply(plaintext []byte) (Reply, error) {
	var r Reply
	if err := json.Unmarshal(plaintext, &r); err != nil {
		return Reply{}, fmt.Errorf("%w: reply is not JSON: %v", ErrMalformed, err)
	}
	switch r.MsgType {
	case "stream":
		if r.Stream == nil || r.Stream.ID == "" {
			return Reply{}, fmt.Errorf("%w: stream reply has no stream.id", ErrMalformed)
		}
	case "text":
		if r.Text == nil {
			return Reply{}, fmt.Errorf("%w: text reply has no text", ErrMalformed)
		}
	case "template_card":
		if len(r.TemplateCard) == 0 {
			return Reply{}, fmt.Errorf("%w: template_card reply has no template_card", ErrMalformed)
		}
	case "":
		return Reply{}, fmt.Errorf("%w: reply has no msgtype", ErrMalformed)
	}
	return r, nil
}

// Envelope is an encrypted passive reply as it goes on the wire:
// {"encrypt","msgsignature","timestamp","nonce"}, all strings, exactly as
// WeCom's own sample code writes it.
type Envelope struct {
	Encrypt      string `json:"encrypt"`
	MsgSignature string `json:"msgsignature"`
	Timestamp    string `json:"timestamp"`
	Nonce        string `json:"nonce"`
}

// UnmarshalJSON also accepts a numeric timestamp, which some bots send.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	var raw struct {
		Encrypt      string          `json:"encrypt"`
		MsgSignature string          `json:"msgsignature"`
		Timestamp    json.RawMessage `json:"timestamp"`
		Nonce        string          `json:"nonce"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	ts := string(raw.Timestamp)
	if len(raw.Timestamp) > 0 && raw.Timestamp[0] == '"' {
		if err := json.Unmarshal(raw.Timestamp, &ts); err != nil {
			return err
		}
	} else if _, err := strconv.ParseInt(ts, 10, 64); ts != "" && err != nil {
		return fmt.Errorf("timestamp %s is neither a string nor an integer", ts)
	}
	*e = Envelope{Encrypt: raw.Encrypt, MsgSignature: raw.MsgSignature, Timestamp: ts, Nonce: raw.Nonce}
	return nil
}

// Seal encrypts and signs a reply plaintext. Pass the callback's own timestamp
// and nonce (or fresh ones from NewNonce) and write the result as the body.
func (c *Crypter) Seal(plaintext []byte, timestamp, nonce string) ([]byte, error) {
	enc, err := c.Encrypt(plaintext)
	if err != nil {
		return nil, fmt.Errorf("seal reply: %w", err)
	}
	b, err := json.Marshal(Envelope{
		Encrypt:      enc,
		MsgSignature: c.Signature(timestamp, nonce, enc),
		Timestamp:    timestamp,
		Nonce:        nonce,
	})
	if err != nil {
		return nil, fmt.Errorf("seal reply: %w", err)
	}
	return b, nil
}

// SealStream validates f and returns the encrypted reply body carrying it.
func (c *Crypter) SealStream(f StreamFrame, timestamp, nonce string) ([]byte, error) {
	pt, err := StreamReply(f)
	if err != nil {
		return nil, err
	}
	return c.Seal(pt, timestamp, nonce)
}

// OpenReply verifies and decrypts an encrypted passive reply body, as WeCom
// does with what a bot answers.
func (c *Crypter) OpenReply(body []byte) ([]byte, error) {
	var e Envelope
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("%w: reply body is not an envelope: %v", ErrMalformed, err)
	}
	if e.Encrypt == "" {
		return nil, fmt.Errorf("%w: reply has no encrypt field", ErrMalformed)
	}
	if err := c.Verify(e.MsgSignature, e.Timestamp, e.Nonce, e.Encrypt); err != nil {
		return nil, fmt.Errorf("open reply: %w", err)
	}
	pt, err := c.Decrypt(e.Encrypt)
	if err != nil {
		return nil, fmt.Errorf("open reply: %w", err)
	}
	return pt, nil
}

// NewNonce returns a random nonce for a signed message.
func NewNonce() string { return RandomHex(8) }
