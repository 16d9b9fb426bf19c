package wecomtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Message is a user message as WeCom would deliver it to the bot.
type Message struct {
	MsgID    string   // default: a fresh random id
	From     string   // the sender's userid; required
	ChatID   string   // set for a group chat
	ChatType ChatType // default: group when ChatID is set, else single
	// MsgType is "text" (default), "voice" (Text is the transcript WeCom
	// sends), "mixed" (Items), or "image", "file", "video" (Link).
	MsgType string
	Text    string    // exactly what WeCom puts in content, "@Bot " included
	Items   []Item    // mixed messages
	Link    MediaLink // image, file and video messages: see MediaServer
	Quote   *Quote    // the message this one quotes, if any
	// ResponseURL defaults to one from Config.ResponseURLs, when set.
	ResponseURL string
}

// Item is one part of a mixed message: text or an image URL.
type Item struct {
	Text     string
	ImageURL string
	AESKey   string // the image's key on the long connection (MediaLink.AESKey)
}

// Stream is a message's stream as the bot opened it.
type Stream struct {
	ID      string
	First   Frame     // the frame answered to the message itself
	SentAt  time.Time // when the user "sent" it; refreshes stop StreamLimit later
	Message Message   // as delivered, defaults filled in
	// Redelivered holds the frames answered to WithRedeliveries deliveries, in
	// order. A bot that dedupes well answers each with the same stream id.
	Redelivered []Frame
}

// wire types of the callbacks WeCom sends.
type (
	jsonContent struct {
		Content string `json:"content"`
	}
	jsonItem struct {
		MsgType string       `json:"msgtype"`
		Text    *jsonContent `json:"text,omitempty"`
		Image   *struct {
			URL string `json:"url"`
		} `json:"image,omitempty"`
	}
	jsonCallback struct {
		MsgID      string `json:"msgid"`
		CreateTime int64  `json:"create_time,omitempty"`
		AIBotID    string `json:"aibotid"`
		ChatID     string `json:"chatid,omitempty"`
		ChatType   string `json:"chattype"`
		From       struct {
			UserID string `json:"userid"`
		} `json:"from"`
		ResponseURL string       `json:"response_url,omitempty"`
		MsgType     string       `json:"msgtype"`
		Text        *jsonContent `json:"text,omitempty"`
		Voice       *jsonContent `json:"voice,omitempty"`
		Mixed       *struct {
			MsgItem []jsonItem `json:"msg_item"`
		} `json:"mixed,omitempty"`
		Stream *struct {
			ID string `json:"id"`
		} `json:"stream,omitempty"`
		Event map[string]any `json:"event,omitempty"`
	}
)

func (s *Sim) fill(m Message) (Message, error) {
	if m.From == "" {
		return m, errors.New("wecomtest: Message.From is empty; WeCom always names the sender")
	}
	if m.MsgID == "" {
		m.MsgID = newMsgID()
	}
	if m.ChatType == "" {
		m.ChatType = ChatSingle
		if m.ChatID != "" {
			m.ChatType = ChatGroup
		}
	}
	if m.ChatType == ChatGroup && m.ChatID == "" {
		return m, errors.New("wecomtest: a group message needs a ChatID")
	}
	if m.MsgType == "" {
		m.MsgType = "text"
	}
	if m.ResponseURL == "" && s.cfg.ResponseURLs != nil {
		m.ResponseURL = s.cfg.ResponseURLs.URL(m.MsgID)
	}
	return m, nil
}

func (s *Sim) messageJSON(m Message) ([]byte, error) {
	cb := jsonCallback{
		MsgID: m.MsgID, AIBotID: s.cfg.AIBotID, ChatID: m.ChatID, ChatType: string(m.ChatType),
		ResponseURL: m.ResponseURL, MsgType: m.MsgType,
	}
	cb.From.UserID = m.From
	switch m.MsgType {
	case "text":
		cb.Text = &jsonContent{m.Text}
	case "voice":
		cb.Voice = &jsonContent{m.Text}
	case "mixed":
		cb.Mixed = &struct {
			MsgItem []jsonItem `json:"msg_item"`
		}{}
		for _, it := range m.Items {
			if it.ImageURL != "" {
				ji := jsonItem{MsgType: "image"}
				ji.Image = &struct {
					URL string `json:"url"`
				}{it.ImageURL}
				cb.Mixed.MsgItem = append(cb.Mixed.MsgItem, ji)
				continue
			}
			cb.Mixed.MsgItem = append(cb.Mixed.MsgItem, jsonItem{MsgType: "text", Text: &jsonContent{it.Text}})
		}
	default:
		return s.mediaMessageJSON(cb, m)
	}
	if m.Quote != nil {
		return s.mediaMessageJSON(cb, m)
	}
	return json.Marshal(cb)
}

// Send delivers a user message and returns the stream the bot opened with its
// first frame. The reply must be a stream reply.
func (s *Sim) Send(ctx context.Context, m Message, opts ...Option) (*Stream, error) {
	m, err := s.fill(m)
	if err != nil {
		return nil, err
	}
	payload, err := s.messageJSON(m)
	if err != nil {
		return nil, err
	}
	sentAt := s.cfg.Now()
	first, err := s.deliverStream(ctx, payload, opts)
	if err != nil {
		return nil, fmt.Errorf("send message %s: %w", m.MsgID, err)
	}
	st := &Stream{ID: first.ID, First: first, SentAt: sentAt, Message: m}
	for i := 0; i < collect(opts).redeliveries; i++ {
		f, err := s.deliverStream(ctx, payload, opts)
		if err != nil {
			return st, fmt.Errorf("redeliver message %s (#%d): %w", m.MsgID, i+1, err)
		}
		st.Redelivered = append(st.Redelivered, f)
	}
	s.mu.Lock()
	s.streams[st.ID] = &streamState{msg: m, sentAt: sentAt, last: first}
	s.mu.Unlock()
	return st, nil
}

// Adopt makes this simulator know a stream another simulator of the same
// WeCom opened (a test playing one WeCom against two replicas), so its
// refreshes come from the stream's sender and chat as WeCom's do; a bot
// answers a stream's frames only to them.
func (s *Sim) Adopt(st *Stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams[st.ID] = &streamState{msg: st.Message, sentAt: st.SentAt, last: st.First}
}

func (s *Sim) deliverStream(ctx context.Context, payload []byte, opts []Option) (Frame, error) {
	d, err := s.Deliver(ctx, payload, opts...)
	if err != nil {
		return Frame{}, err
	}
	if d.Plaintext == nil {
		return Frame{}, ErrNoReply
	}
	r, err := parseReply(d.Plaintext)
	if err != nil {
		return Frame{}, fmt.Errorf("wecomtest: bot reply: %w", err)
	}
	if r.MsgType != "stream" {
		return Frame{}, fmt.Errorf("wecomtest: bot replied msgtype %q, want stream", r.MsgType)
	}
	if err := r.Stream.check(); err != nil {
		return Frame{}, fmt.Errorf("wecomtest: bot reply: %w", err)
	}
	return *r.Stream, nil
}

// Refresh sends the stream refresh callback WeCom sends while a stream is
// open, and returns the frame the bot answered. The refresh carries the
// original message's chat and sender, and a fresh msgid.
func (s *Sim) Refresh(ctx context.Context, streamID string, opts ...Option) (Frame, error) {
	s.mu.Lock()
	st := s.streams[streamID]
	var m Message
	if st != nil {
		m = st.msg
	}
	s.mu.Unlock()
	if m.ChatType == "" {
		m.ChatType = ChatSingle
	}
	cb := jsonCallback{MsgID: newMsgID(), AIBotID: s.cfg.AIBotID, ChatID: m.ChatID, ChatType: string(m.ChatType), MsgType: "stream"}
	cb.From.UserID = m.From
	cb.Stream = &struct {
		ID string `json:"id"`
	}{streamID}
	payload, err := json.Marshal(cb)
	if err != nil {
		return Frame{}, err
	}
	f, err := s.deliverStream(ctx, payload, opts)
	if err != nil {
		return Frame{}, fmt.Errorf("refresh stream %s: %w", streamID, err)
	}
	if f.ID != streamID {
		return f, fmt.Errorf("refresh stream %s: bot answered stream %s", streamID, f.ID)
	}
	if st != nil {
		s.mu.Lock()
		st.last = f
		s.mu.Unlock()
	}
	return f, nil
}

// Follow refreshes a stream every interval, calling onFrame (if not nil) with
// each frame, until a frame has finish:true, which it returns. Like WeCom it
// stops StreamLimit after the user's message, returning the newest frame and
// ErrStreamExpired, and it sends nothing for a stream already finished.
func (s *Sim) Follow(ctx context.Context, streamID string, every time.Duration, onFrame func(Frame)) (Frame, error) {
	s.mu.Lock()
	sentAt, last := s.cfg.Now(), Frame{ID: streamID}
	if st := s.streams[streamID]; st != nil {
		sentAt, last = st.sentAt, st.last
	}
	s.mu.Unlock()
	if last.Finish {
		return last, nil
	}
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-t.C:
		}
		if s.cfg.Now().Sub(sentAt) >= s.cfg.StreamLimit {
			return last, fmt.Errorf("follow stream %s: %w", streamID, ErrStreamExpired)
		}
		f, err := s.Refresh(ctx, streamID)
		if err != nil {
			return last, err
		}
		last = f
		if onFrame != nil {
			onFrame(f)
		}
		if f.Finish {
			return f, nil
		}
		t.Reset(every)
	}
}

// SendEvent delivers an event callback (eventtype such as "enter_chat") from
// a user in a 1:1 chat and returns the decrypted reply, nil when the bot
// answered with an empty body.
func (s *Sim) SendEvent(ctx context.Context, from, eventType string, opts ...Option) (*Reply, error) {
	cb := jsonCallback{
		MsgID: newMsgID(), CreateTime: s.cfg.Now().Unix(), AIBotID: s.cfg.AIBotID,
		ChatType: string(ChatSingle), MsgType: "event",
		Event: map[string]any{"eventtype": eventType},
	}
	cb.From.UserID = from
	payload, err := json.Marshal(cb)
	if err != nil {
		return nil, err
	}
	d, err := s.Deliver(ctx, payload, opts...)
	if err != nil {
		return nil, fmt.Errorf("send event %s: %w", eventType, err)
	}
	if d.Plaintext == nil {
		return nil, nil
	}
	r, err := parseReply(d.Plaintext)
	if err != nil {
		return nil, fmt.Errorf("send event %s: %w", eventType, err)
	}
	return &r, nil
}

// newMsgID makes an id shaped like WeCom's (opaque, unique).
func newMsgID() string { return "SIM" + randomHex(12) }
