package wecomtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// LongConnMessage is a user's message to push as aibot_msg_callback.
type LongConnMessage struct {
	MsgID  string // "" makes one up
	UserID string
	ChatID string // set for a group message
	Text   string
	// MsgType is "text" (default), "voice", "mixed" (Items), or "image",
	// "file", "video" (Link, with its AESKey as WeCom sends it).
	MsgType string
	Items   []Item
	Link    MediaLink
	Quote   *Quote
}

// LongConnEvent is an event to push as aibot_event_callback.
type LongConnEvent struct {
	MsgID     string // "" makes one up
	UserID    string
	ChatID    string
	EventType string         // enter_chat, template_card_event, feedback_event, …
	Payload   map[string]any // becomes event.<EventType> when set
}

// ErrNotSubscribed says no connection is subscribed to push to.
var ErrNotSubscribed = errors.New("wecomtest: no subscribed long connection")

// PushMessage pushes m to the subscribed connection and returns the
// callback's req_id, which the bot's replies must use.
func (s *LongConnServer) PushMessage(m LongConnMessage) (string, error) {
	if m.MsgID == "" {
		m.MsgID = s.newID("msg")
	}
	body := map[string]any{
		"msgid": m.MsgID, "aibotid": s.opts.BotID, "chattype": "single", "from": map[string]string{"userid": m.UserID},
		"create_time": time.Now().Unix(), "response_url": "http://127.0.0.1:1/cgi-bin/aibot/response?response_code=" + m.MsgID,
	}
	if err := withContent(body, m.MsgType, m.Text, m.Link, m.Items, m.Quote); err != nil {
		return "", err
	}
	chat := m.UserID
	if m.ChatID != "" {
		body["chattype"], body["chatid"], chat = "group", m.ChatID, m.ChatID
	}
	return s.push("aibot_msg_callback", body, "", chat)
}

// PushEvent pushes e to the subscribed connection and returns its req_id.
func (s *LongConnServer) PushEvent(e LongConnEvent) (string, error) {
	if e.MsgID == "" {
		e.MsgID = s.newID("evt")
	}
	ev := map[string]any{"eventtype": e.EventType}
	if e.Payload != nil {
		ev[e.EventType] = e.Payload
	}
	body := map[string]any{
		"msgid": e.MsgID, "aibotid": s.opts.BotID, "chattype": "single", "from": map[string]string{"userid": e.UserID},
		"create_time": time.Now().Unix(), "msgtype": "event", "event": ev,
	}
	if e.ChatID != "" {
		body["chattype"], body["chatid"] = "group", e.ChatID
	}
	return s.push("aibot_event_callback", body, e.EventType, "")
}

// PushRaw writes data verbatim to the subscribed connection, e.g. a frame
// with raw control characters inside its JSON strings (§H item 7).
func (s *LongConnServer) PushRaw(data []byte) error {
	s.mu.Lock()
	c := s.subscribedLocked()
	s.mu.Unlock()
	if c == nil {
		return ErrNotSubscribed
	}
	s.sendRaw(c, data)
	return nil
}

// RegisterCallback lets replies use reqID as if the server had pushed a
// message callback with it (for raw pushes).
func (s *LongConnServer) RegisterCallback(reqID, chatID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callback[reqID] = &callbackState{at: time.Now(), chatID: chatID, streamIDs: map[string]bool{}}
	s.talked[chatID] = true
}

func (s *LongConnServer) push(cmd string, body map[string]any, event, chat string) (string, error) {
	s.mu.Lock()
	c := s.subscribedLocked()
	s.mu.Unlock()
	if c == nil {
		return "", ErrNotSubscribed
	}
	return s.pushTo(c, cmd, body, event, chat), nil
}

// pushTo records the callback's state, then writes it to c.
func (s *LongConnServer) pushTo(c *fakeConn, cmd string, body map[string]any, event, chat string) string {
	s.mu.Lock()
	reqID := s.newIDLocked("REQ")
	s.callback[reqID] = &callbackState{at: time.Now(), event: event, chatID: chat, streamIDs: map[string]bool{}}
	if chat != "" {
		s.talked[chat] = true
	}
	raw, err := json.Marshal(body)
	if err != nil {
		panic(fmt.Sprintf("wecomtest: marshal callback: %v", err))
	}
	s.recordLocked(Record{Conn: c.id, Kind: KindPush, Cmd: cmd, ReqID: reqID, Body: raw})
	s.mu.Unlock()
	s.send(c, map[string]any{"cmd": cmd, "headers": map[string]string{"req_id": reqID}, "body": json.RawMessage(raw)})
	return reqID
}

func (s *LongConnServer) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newIDLocked(prefix)
}

// newIDLocked never starts with "ping" or "aibot_subscribe": the SDK sorts
// acks by those prefixes (§A.2).
func (s *LongConnServer) newIDLocked(prefix string) string {
	s.ids++
	return fmt.Sprintf("%s_%d_%d", prefix, time.Now().UnixNano(), s.ids)
}

// ExpireStream makes reqID's stream expired now: its next stream frame fails
// with 846608, as after WeCom's stream lifetime.
func (s *LongConnServer) ExpireStream(reqID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.callback[reqID]; st != nil {
		st.at = time.Time{}
	}
}
