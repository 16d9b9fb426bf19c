package wecomtest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// sendBody is message/send's body as the fake checks it. AgentID stays raw
// so a string agentid (silenceper's type) is told from a number.
type sendBody struct {
	ToUser   string          `json:"touser"`
	MsgType  string          `json:"msgtype"`
	AgentID  json.RawMessage `json:"agentid"`
	Markdown *struct {
		Content string `json:"content"`
	} `json:"markdown"`
	Text *struct {
		Content string `json:"content"`
	} `json:"text"`
	TemplateCard json.RawMessage `json:"template_card"`
}

type cardHead struct {
	CardType   string            `json:"card_type"`
	TaskID     string            `json:"task_id"`
	ButtonList []json.RawMessage `json:"button_list"`
}

func (a *AppAPI) send(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	a.mu.Lock()
	defer a.mu.Unlock()
	tok, ok := a.checkToken(w, r, "message/send")
	if !ok {
		return
	}
	rec := AppRecord{API: "message/send", Token: tok, Body: raw}
	fail := func(code int, msg string) { a.refuse(w, &rec, code, msg) }
	var b sendBody
	if err := json.Unmarshal(raw, &b); err != nil {
		fail(ErrcodeInvalidParameter, "invalid json: "+err.Error())
		return
	}
	rec.ToUser, rec.MsgType = b.ToUser, b.MsgType
	if code, msg := a.checkAgent(b.AgentID); code != 0 {
		fail(code, msg)
		return
	}
	if b.ToUser == "" || strings.ContainsAny(b.ToUser, " ,") {
		fail(ErrcodeAllInvalid, "all touser invalid")
		return
	}
	extra := map[string]any{"invaliduser": "", "msgid": "MSG" + strconv.Itoa(a.sequence+1)}
	switch b.MsgType {
	case "markdown", "text":
		content := ""
		if b.Markdown != nil && b.MsgType == "markdown" {
			content = b.Markdown.Content
		}
		if b.Text != nil && b.MsgType == "text" {
			content = b.Text.Content
		}
		if content == "" {
			fail(ErrcodeInvalidParameter, b.MsgType+".content missing")
			return
		}
		if len(content) > AppMarkdownMaxBytes {
			fail(ErrcodeContentTooLong, "content size out of limit")
			return
		}
		rec.Content = content
	case "template_card":
		var head cardHead
		if len(b.TemplateCard) == 0 || json.Unmarshal(b.TemplateCard, &head) != nil || head.CardType == "" {
			fail(ErrcodeInvalidParameter, "template_card.card_type missing")
			return
		}
		if head.CardType == "button_interaction" {
			if head.TaskID == "" || len(head.ButtonList) == 0 || len(head.ButtonList) > 6 {
				fail(ErrcodeInvalidParameter, "button_interaction needs task_id and 1..6 buttons")
				return
			}
			if a.taskIDs[head.TaskID] {
				fail(ErrcodeInvalidParameter, "task_id exists")
				return
			}
			a.taskIDs[head.TaskID] = true
			rec.ResponseCode = "RC" + strconv.Itoa(a.sequence+1) + "x" + strconv.FormatInt(a.opts.AgentID, 10)
			a.codes[rec.ResponseCode] = true
			extra["response_code"] = rec.ResponseCode
		}
		rec.Card = b.TemplateCard
	case "image", "file":
		id, code, msg := a.mediaOf(b.MsgType, raw)
		if code != 0 {
			fail(code, msg)
			return
		}
		rec.Content = id
	default:
		fail(ErrcodeInvalidParameter, "msgtype "+b.MsgType+" not served by the fake")
		return
	}
	rec.Dropped = !a.admit(b.ToUser)
	a.record(rec)
	writeErrcode(w, 0, "ok", extra)
}

// checkAgent answers 40056 unless agentid is this app's, as a JSON number:
// WeCom type-checks request fields.
func (a *AppAPI) checkAgent(raw json.RawMessage) (int, string) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || s[0] == '"' {
		return ErrcodeInvalidAgentID, "invalid agentid: want a number, got " + strconv.Quote(s)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err != nil || n != a.opts.AgentID {
		return ErrcodeInvalidAgentID, "invalid agentid " + s
	}
	return 0, ""
}

// admit counts a send to user against the per-member budget; false means
// WeCom would drop it.
func (a *AppAPI) admit(user string) bool {
	now := a.opts.Now()
	var minute, hour int
	kept := a.sends[user][:0]
	for _, t := range a.sends[user] {
		if now.Sub(t) < time.Hour {
			kept = append(kept, t)
			hour++
			if now.Sub(t) < time.Minute {
				minute++
			}
		}
	}
	a.sends[user] = kept
	if minute >= AppSendsPerMinute || hour >= AppSendsPerHour {
		return false
	}
	a.sends[user] = append(a.sends[user], now)
	return true
}

func (a *AppAPI) updateCard(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	a.mu.Lock()
	defer a.mu.Unlock()
	tok, ok := a.checkToken(w, r, "message/update_template_card")
	if !ok {
		return
	}
	rec := AppRecord{API: "message/update_template_card", Token: tok, Body: raw}
	fail := func(code int, msg string) { a.refuse(w, &rec, code, msg) }
	var b struct {
		UserIDs      []string        `json:"userids"`
		AgentID      json.RawMessage `json:"agentid"`
		ResponseCode string          `json:"response_code"`
		TemplateCard json.RawMessage `json:"template_card"`
		Button       json.RawMessage `json:"button"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		fail(ErrcodeInvalidParameter, "invalid json: "+err.Error())
		return
	}
	rec.ResponseCode, rec.Card = b.ResponseCode, b.TemplateCard
	if len(b.UserIDs) > 0 {
		rec.ToUser = b.UserIDs[0]
	}
	if code, msg := a.checkAgent(b.AgentID); code != 0 {
		fail(code, msg)
		return
	}
	if !a.codes[b.ResponseCode] {
		fail(ErrcodeInvalidResponseCode, "invalid response_code")
		return
	}
	if len(b.TemplateCard) == 0 && len(b.Button) == 0 {
		fail(ErrcodeInvalidParameter, "template_card or button missing")
		return
	}
	a.codes[b.ResponseCode] = false // single use
	a.record(rec)
	writeErrcode(w, 0, "ok", nil)
}

func (a *AppAPI) mediaGet(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tok, ok := a.checkToken(w, r, "media/get")
	if !ok {
		return
	}
	id := r.URL.Query().Get("media_id")
	m, found := a.media[id]
	if !found {
		a.record(AppRecord{API: "media/get", Token: tok, Errcode: ErrcodeInvalidMediaID})
		writeErrcode(w, ErrcodeInvalidMediaID, "invalid media_id", nil)
		return
	}
	a.record(AppRecord{API: "media/get", Token: tok, Content: id})
	w.Header().Set("Content-Type", m.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": m.Name}))
	_, _ = w.Write(m.Data)
}

// refuse records rec as answered with errcode code, and answers so.
func (a *AppAPI) refuse(w http.ResponseWriter, rec *AppRecord, code int, msg string) {
	rec.Errcode = code
	a.record(*rec)
	writeErrcode(w, code, msg, nil)
}
