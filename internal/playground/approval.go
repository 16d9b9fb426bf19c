package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Button is one button the page shows on a card.
type Button struct {
	Text string `json:"text"`
	// Command is the text command the button sends as the user (webhook
	// mode: WeCom's reply to a refresh cannot carry buttons, so the page
	// offers the commands the card names).
	Command string `json:"command,omitempty"`
	// Key is a button_interaction button's key, which a click sends back
	// in a template_card_event (long-connection mode).
	Key string `json:"key,omitempty"`
}

// TemplateCard is a button_interaction card the bot sent over the long
// connection, as the page shows it; a click's aibot_respond_update_msg
// replaces it.
type TemplateCard struct {
	TaskID  string   `json:"task_id"`
	Title   string   `json:"title"`
	Desc    string   `json:"desc,omitempty"`
	Sub     string   `json:"sub,omitempty"`
	Buttons []Button `json:"buttons"`
}

// commandButtons are what a card waiting for approval offers in webhook
// mode: each sends the command the card's status names. Without a number
// a command decides the oldest waiting request, the one the status shows.
var commandButtons = []Button{
	{Text: "Approve", Command: "/approve"},
	{Text: "Approve always", Command: "/approve always"},
	{Text: "Deny", Command: "/deny"},
}

// wireCard is the template_card of aibot_send_msg and of
// aibot_respond_update_msg (WECOM-PROTOCOL.md §B.1, §B.4).
type wireCard struct {
	CardType  string `json:"card_type"`
	MainTitle struct {
		Title string `json:"title"`
		Desc  string `json:"desc"`
	} `json:"main_title"`
	Sub     string `json:"sub_title_text"`
	Buttons []struct {
		Text string `json:"text"`
		Key  string `json:"key"`
	} `json:"button_list"`
	TaskID string `json:"task_id"`
}

// templateCardOf decodes the template_card of a request body; ok is false
// when it carries none with buttons.
func templateCardOf(body json.RawMessage) (TemplateCard, bool) {
	var b struct {
		Card *wireCard `json:"template_card"`
	}
	if json.Unmarshal(body, &b) != nil || b.Card == nil || b.Card.CardType != "button_interaction" {
		return TemplateCard{}, false
	}
	c := TemplateCard{TaskID: b.Card.TaskID, Title: b.Card.MainTitle.Title, Desc: b.Card.MainTitle.Desc, Sub: b.Card.Sub}
	for _, x := range b.Card.Buttons {
		c.Buttons = append(c.Buttons, Button{Text: x.Text, Key: x.Key})
	}
	return c, true
}

// showCard puts a card the bot sent on the answer it belongs to.
func (lc *longConn) showCard(b *board, id string, c TemplateCard) {
	lc.mu.Lock()
	lc.cardOf[c.TaskID] = id
	lc.mu.Unlock()
	b.update(id, func(a *answer) { a.cards = append(a.cards, c) })
}

// replaceCard shows the card a click's aibot_respond_update_msg sent in
// place of the clicked one.
func (lc *longConn) replaceCard(b *board, clickReqID string, c TemplateCard) {
	lc.mu.Lock()
	taskID := lc.clicks[clickReqID]
	id := lc.cardOf[taskID]
	lc.mu.Unlock()
	b.update(id, func(a *answer) {
		for i := range a.cards {
			if a.cards[i].TaskID == taskID {
				c.TaskID = taskID // an update may not change it (§B.4)
				a.cards[i] = c
			}
		}
	})
}

// click plays a user's click on a card's button: a template_card_event on
// the long connection, as WeCom's client sends it.
func (lc *longConn) click(b *board, user, taskID, key string) error {
	lc.mu.Lock()
	id, ok := lc.cardOf[taskID]
	lc.mu.Unlock()
	if !ok {
		return fmt.Errorf("no card %q on this page", taskID)
	}
	var known bool
	b.read(id, func(a *answer) {
		for _, c := range a.cards {
			known = known || (c.TaskID == taskID && slices.ContainsFunc(c.Buttons, func(x Button) bool { return x.Key == key }))
		}
	})
	if !known {
		return fmt.Errorf("card %q has no button %q", taskID, key)
	}
	reqID, err := lc.srv.PushEvent(wecomtest.LongConnEvent{UserID: user, EventType: "template_card_event",
		Payload: map[string]any{"card_type": "button_interaction", "event_key": key, "task_id": taskID}})
	if err != nil {
		return fmt.Errorf("push template_card_event: %w", err)
	}
	lc.mu.Lock()
	lc.clicks[reqID] = taskID
	lc.mu.Unlock()
	return nil
}

// Click plays a click on a button of a card the bot sent (long-connection
// mode only; in webhook mode a button sends its command with Send).
func (p *Playground) Click(ctx context.Context, taskID, key string) error {
	if p.lc == nil {
		return errors.New("cards with buttons come only over the long connection; this playground plays the webhook")
	}
	if ctx.Err() != nil || p.ctx.Err() != nil {
		return errors.New("the playground is shutting down")
	}
	return p.lc.click(p.board, p.cfg.User, taskID, key)
}

// read runs f on a card under the board's lock, changing nothing.
func (b *board) read(id string, f func(a *answer)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if a := b.byID[id]; a != nil {
		f(a)
	}
}

type clickRequest struct {
	TaskID string `json:"task_id"`
	Key    string `json:"key"`
}

// serveClick takes a click on a card's button, a JSON POST like /send.
func (p *Playground) serveClick(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeSend(w, http.StatusUnsupportedMediaType, sendResponse{Error: `send JSON: {"task_id": "…", "key": "…"}`})
		return
	}
	var req clickRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 4<<10)).Decode(&req); err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: "bad JSON body: " + err.Error()})
		return
	}
	if err := p.Click(r.Context(), req.TaskID, req.Key); err != nil {
		writeSend(w, http.StatusBadRequest, sendResponse{Error: err.Error()})
		return
	}
	writeSend(w, http.StatusAccepted, sendResponse{ID: req.TaskID})
}
