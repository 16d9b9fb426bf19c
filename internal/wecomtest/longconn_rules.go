package wecomtest

import (
	"encoding/json"
	"time"
)

// StreamMaxBytes is WeCom's cap on stream.content (§A.12). It is stated
// here, not taken from the bot: the fake enforces WeCom's rule, not the
// bot's idea of it.
const StreamMaxBytes = 20480

// callbackState is what the server remembers of a callback it pushed, to
// judge the replies that use its req_id.
type callbackState struct {
	at        time.Time
	event     string // "" for a message; the eventtype for an event
	cards     int    // template cards replied to a message
	answered  bool   // a welcome or card update was accepted
	chatID    string // where aibot_send_msg may reach its sender
	streamIDs map[string]bool
}

type request struct {
	Cmd     string `json:"cmd"`
	Headers struct {
		ReqID string `json:"req_id"`
	} `json:"headers"`
	Body json.RawMessage `json:"body"`
}

// sendMsgTypes are the msgtypes aibot_send_msg accepts (§0.1 item 6).
var sendMsgTypes = map[string]bool{"markdown": true, "template_card": true, "file": true, "image": true, "voice": true, "video": true}

func (s *LongConnServer) handle(c *fakeConn, data []byte) {
	var q request
	if err := json.Unmarshal(data, &q); err != nil || q.Cmd == "" || q.Headers.ReqID == "" {
		s.mu.Lock()
		s.recordLocked(Record{Conn: c.id, Kind: KindBad, Body: json.RawMessage(jsonOrString(data))})
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	code, msg := s.judgeLocked(c, q)
	if fail, ok := s.failCmd[q.Cmd]; ok && code == 0 {
		code, msg = fail, "system error"
	}
	var ackBody any
	if code == 0 && isUpload(q.Cmd) {
		code, msg, ackBody = s.uploadLocked(q)
	}
	s.recordLocked(Record{Conn: c.id, Kind: KindRequest, Cmd: q.Cmd, ReqID: q.Headers.ReqID, Body: q.Body, Errcode: code, Errmsg: msg})
	ack := map[string]any{"headers": map[string]string{"req_id": q.Headers.ReqID}, "errcode": code, "errmsg": msg}
	if ackBody != nil {
		ack["body"] = ackBody
	}
	policy := s.policy[q.Cmd]
	if policy == AckHold {
		s.held[q.Cmd] = append(s.held[q.Cmd], heldAck{c: c, ack: ack})
	}
	kick := q.Cmd == "aibot_subscribe" && code == 0
	s.mu.Unlock()
	if policy == AckNow {
		s.sendAck(c, ack)
	}
	if kick {
		s.kickOthers(c)
	}
}

// sendAck records and writes an ack (held acks go through here too).
func (s *LongConnServer) sendAck(c *fakeConn, ack map[string]any) {
	s.mu.Lock()
	h, _ := ack["headers"].(map[string]string)
	code, _ := ack["errcode"].(int)
	s.recordLocked(Record{Conn: c.id, Kind: KindAck, ReqID: h["req_id"], Errcode: code})
	s.mu.Unlock()
	data, _ := json.Marshal(ack)
	s.sendRaw(c, data)
}

// judgeLocked applies WeCom's rules to a request and returns the ack's code.
func (s *LongConnServer) judgeLocked(c *fakeConn, q request) (int, string) {
	if q.Cmd == "aibot_subscribe" {
		return s.subscribeLocked(c, q.Body)
	}
	if !c.subscribed {
		return CodeInvalidParam, "not subscribed"
	}
	switch q.Cmd {
	case "ping":
		return 0, "ok"
	case "aibot_respond_msg":
		return s.respondLocked(q)
	case "aibot_respond_welcome_msg":
		return s.eventReplyLocked(q, "enter_chat")
	case "aibot_respond_update_msg":
		return s.eventReplyLocked(q, "template_card_event")
	case "aibot_send_msg":
		return s.sendMsgLocked(q.Body)
	}
	return 0, "ok"
}

func isUpload(cmd string) bool {
	return cmd == "aibot_upload_media_init" || cmd == "aibot_upload_media_chunk" || cmd == "aibot_upload_media_finish"
}

func (s *LongConnServer) subscribeLocked(c *fakeConn, body json.RawMessage) (int, string) {
	var b struct {
		BotID  string `json:"bot_id"`
		Secret string `json:"secret"`
	}
	if json.Unmarshal(body, &b) != nil || b.BotID != s.opts.BotID || b.Secret != s.opts.Secret {
		// The real server leaves the socket open after this (§A.3).
		return CodeBadCredentials, "invalid bot_id or secret"
	}
	c.subscribed = true
	n := 0
	for _, x := range s.conns {
		if x.subscribed {
			n++
		}
	}
	s.maxSubs = max(s.maxSubs, n)
	return 0, "ok"
}

func (s *LongConnServer) respondLocked(q request) (int, string) {
	st := s.callback[q.Headers.ReqID]
	if st == nil || st.event != "" {
		return CodeInvalidReqID, "invalid req_id"
	}
	var b struct {
		MsgType string `json:"msgtype"`
		Stream  *struct {
			ID      string    `json:"id"`
			Finish  bool      `json:"finish"`
			Content string    `json:"content"`
			MsgItem []msgItem `json:"msg_item"`
		} `json:"stream"`
	}
	if json.Unmarshal(q.Body, &b) != nil {
		return CodeInvalidParam, "invalid body"
	}
	switch b.MsgType {
	case "stream", "stream_with_template_card":
		if b.Stream == nil || b.Stream.ID == "" {
			return CodeInvalidParam, "stream.id missing"
		}
		if time.Since(st.at) > s.opts.StreamTTL {
			return CodeStreamExpired, "stream message update expired"
		}
		if len(b.Stream.Content) > StreamMaxBytes {
			return CodeInvalidParam, "stream.content exceeds 20480 bytes"
		}
		if code, msg := checkMsgItems(b.Stream.MsgItem, b.Stream.Finish); code != 0 {
			return code, msg
		}
		st.streamIDs[b.Stream.ID] = true
		if b.MsgType == "stream" {
			return 0, "ok"
		}
	case "template_card":
	default:
		return CodeInvalidMsgType, "invalid message type"
	}
	st.cards++
	if st.cards > 1 {
		return CodeInvalidParam, "template card already sent for this message"
	}
	return 0, "ok"
}

// eventReplyLocked judges a welcome or card update: only on the req_id of
// the event it answers, once, within the reply window.
func (s *LongConnServer) eventReplyLocked(q request, event string) (int, string) {
	st := s.callback[q.Headers.ReqID]
	if st == nil || st.event != event {
		return CodeInvalidReqID, "invalid req_id"
	}
	if st.answered || time.Since(st.at) > s.opts.ReplyWindow {
		return CodeInvalidReqID, "reply window passed"
	}
	var b struct {
		MsgType      string `json:"msgtype"`
		ResponseType string `json:"response_type"`
	}
	_ = json.Unmarshal(q.Body, &b)
	if event == "enter_chat" && b.MsgType != "text" && b.MsgType != "template_card" {
		return CodeInvalidMsgType, "invalid message type"
	}
	if event == "template_card_event" && b.ResponseType != "update_template_card" {
		return CodeInvalidParam, "invalid response_type"
	}
	st.answered = true
	return 0, "ok"
}

func (s *LongConnServer) sendMsgLocked(body json.RawMessage) (int, string) {
	var b struct {
		ChatID  string `json:"chatid"`
		MsgType string `json:"msgtype"`
	}
	_ = json.Unmarshal(body, &b)
	if !sendMsgTypes[b.MsgType] {
		return CodeInvalidMsgType, "invalid message type"
	}
	if !s.talked[b.ChatID] {
		return CodeInvalidChatID, "invalid chatid"
	}
	if b.MsgType != "markdown" && b.MsgType != "template_card" {
		return s.mediaLocked(b.MsgType, body)
	}
	return 0, "ok"
}

// kickOthers pushes disconnected_event to every other subscribed connection
// and closes it after KickCloseDelay, as WeCom does to the older of two.
func (s *LongConnServer) kickOthers(newer *fakeConn) {
	s.mu.Lock()
	var old []*fakeConn
	for _, c := range s.conns {
		if c != newer && c.subscribed && !c.kicked {
			c.kicked = true
			old = append(old, c)
		}
	}
	s.mu.Unlock()
	for _, c := range old {
		s.pushTo(c, "aibot_event_callback", map[string]any{
			"msgid": s.newID("kick"), "create_time": time.Now().Unix(), "aibotid": s.opts.BotID,
			"msgtype": "event", "event": map[string]any{"eventtype": "disconnected_event"},
		}, "", "")
		time.AfterFunc(s.opts.KickCloseDelay, func() { c.ws.CloseNow() })
	}
}

// Kicks is how many connections were told disconnected_event.
func (s *LongConnServer) Kicks() int {
	n := 0
	for _, r := range s.Records() {
		if r.Kind == KindPush && r.Cmd == "aibot_event_callback" && eventType(r.Body) == "disconnected_event" {
			n++
		}
	}
	return n
}

func eventType(body json.RawMessage) string {
	var b struct {
		Event struct {
			EventType string `json:"eventtype"`
		} `json:"event"`
	}
	_ = json.Unmarshal(body, &b)
	return b.Event.EventType
}

func jsonOrString(data []byte) []byte {
	if json.Valid(data) {
		return data
	}
	out, _ := json.Marshal(string(data))
	return out
}
