package playground

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A webhook-mode card waiting for approval offers the three commands as
// buttons; once it runs again, or in long-connection mode, it offers none.
func TestBoardOffersApprovalCommandsWhileWaiting(t *testing.T) {
	const waiting = "<think>\nApproval #1 asked of alice\n</think>\n\n⏸ Waiting for approval: #1 `make deploy` — send /approve, /approve always or /deny (#1)"
	b := newBoard()
	b.commands = true
	b.add("m1", "deploy")
	b.frame("m1", waiting, false)
	var got []string
	for _, x := range b.byID["m1"].view.Buttons {
		got = append(got, x.Text+"="+x.Command)
	}
	if want := "Approve=/approve|Approve always=/approve always|Deny=/deny"; strings.Join(got, "|") != want {
		t.Fatalf("buttons = %q, want %q", got, want)
	}
	b.frame("m1", "<think>\n#1 approved by alice\n</think>\n\nDeployed.", true)
	if v := b.byID["m1"].view; v.State != StateDone || v.Buttons != nil {
		t.Fatalf("finished card = %+v, want done without buttons", v)
	}
	lc := newBoard()
	lc.add("m2", "deploy")
	lc.frame("m2", waiting, false)
	if v := lc.byID["m2"].view; v.State != StateWaiting || v.Buttons != nil {
		t.Fatalf("long-connection card = %+v, want waiting without command buttons", v)
	}
}

func TestTemplateCardOf(t *testing.T) {
	body := json.RawMessage(`{"chatid":"playground","msgtype":"template_card","template_card":{"card_type":"button_interaction",
		"main_title":{"title":"Codex asks #1","desc":"for playground or an admin"},"sub_title_text":"make deploy",
		"button_list":[{"text":"Approve","style":1,"key":"appr:1:approve"},{"text":"Deny","style":3,"key":"appr:1:deny"}],"task_id":"wxappr_1_ab"}}`)
	c, ok := templateCardOf(body)
	if !ok || c.TaskID != "wxappr_1_ab" || c.Title != "Codex asks #1" || c.Desc != "for playground or an admin" || c.Sub != "make deploy" ||
		len(c.Buttons) != 2 || c.Buttons[0] != (Button{Text: "Approve", Key: "appr:1:approve"}) || c.Buttons[1] != (Button{Text: "Deny", Key: "appr:1:deny"}) {
		t.Fatalf("card = %+v, %v", c, ok)
	}
	for _, bad := range []string{`{"msgtype":"markdown","markdown":{"content":"x"}}`, `{"template_card":{"card_type":"text_notice"}}`, `not json`} {
		if c, ok := templateCardOf(json.RawMessage(bad)); ok {
			t.Errorf("templateCardOf(%s) = %+v, want none", bad, c)
		}
	}
}

// TestLongConnCardAndClick: the button card the bot sends shows on the
// latest message's card; a click on one of its buttons is a
// template_card_event from the playground user with the button's key and
// the card's task_id; the update answering it replaces the card.
func TestLongConnCardAndClick(t *testing.T) {
	p := newLongConnPlayground(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dialSubscribed(t, ctx, p)
	id, err := p.Send("deploy")
	if err != nil {
		t.Fatal(err)
	}
	readFrame(t, ctx, c, "aibot_msg_callback")
	writeFrame(t, ctx, c, "aibot_send_msg", "send-1", map[string]any{"chatid": "playground", "msgtype": "template_card",
		"template_card": map[string]any{"card_type": "button_interaction", "main_title": map[string]any{"title": "Codex asks #1"},
			"button_list": []map[string]any{{"text": "Approve", "key": "appr:1:approve"}}, "task_id": "wxappr_1_ab"}})
	v := waitView(t, ctx, p, id, func(v View) bool { return len(v.Cards) == 1 })
	if got := v.Cards[0]; got.TaskID != "wxappr_1_ab" || got.Title != "Codex asks #1" || len(got.Buttons) != 1 {
		t.Fatalf("card = %+v", got)
	}
	for _, bad := range []struct{ task, key, want string }{
		{"nope", "appr:1:approve", `no card "nope" on this page`},
		{"wxappr_1_ab", "appr:1:always", `card "wxappr_1_ab" has no button "appr:1:always"`},
	} {
		if err := p.Click(ctx, bad.task, bad.key); err == nil || err.Error() != bad.want {
			t.Errorf("Click(%s, %s) = %v, want %q", bad.task, bad.key, err, bad.want)
		}
	}
	if err := p.Click(ctx, "wxappr_1_ab", "appr:1:approve"); err != nil {
		t.Fatal(err)
	}
	ev := readFrame(t, ctx, c, "aibot_event_callback")
	var body struct {
		MsgType string `json:"msgtype"`
		From    struct {
			UserID string `json:"userid"`
		} `json:"from"`
		Event struct {
			EventType string `json:"eventtype"`
			Card      struct {
				Key    string `json:"event_key"`
				TaskID string `json:"task_id"`
			} `json:"template_card_event"`
		} `json:"event"`
	}
	if err := json.Unmarshal(ev.Body, &body); err != nil || body.From.UserID != "playground" || body.Event.EventType != "template_card_event" ||
		body.Event.Card.Key != "appr:1:approve" || body.Event.Card.TaskID != "wxappr_1_ab" {
		t.Fatalf("click event %s = %+v (%v)", ev.Body, body, err)
	}
	reqID, _ := ev.Headers["req_id"].(string)
	writeFrame(t, ctx, c, "aibot_respond_update_msg", reqID, map[string]any{"response_type": "update_template_card",
		"template_card": map[string]any{"card_type": "button_interaction", "main_title": map[string]any{"title": "Approved by playground"},
			"button_list": []map[string]any{{"text": "Approved by playground", "key": "appr:1:done"}}, "task_id": "wxappr_1_ab"}})
	v = waitView(t, ctx, p, id, func(v View) bool { return len(v.Cards) == 1 && v.Cards[0].Title == "Approved by playground" })
	if got := v.Cards[0]; got.TaskID != "wxappr_1_ab" || len(got.Buttons) != 1 || got.Buttons[0].Key != "appr:1:done" {
		t.Fatalf("replaced card = %+v", got)
	}
}

// In webhook mode there are no cards to click: the buttons send commands.
func TestServeClickRefusesInWebhookMode(t *testing.T) {
	p := newTestPlayground(t)
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/playground/click", strings.NewReader(`{"task_id":"t","key":"k"}`))
	r.RemoteAddr = "127.0.0.1:5000"
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	p.Handler().ServeHTTP(w, r)
	want := `{"error":"cards with buttons come only over the long connection; this playground plays the webhook"}` + "\n"
	if w.Code != http.StatusBadRequest || w.Body.String() != want {
		t.Fatalf("click = %d %s, want 400 %s", w.Code, w.Body.String(), want)
	}
}

func dialSubscribed(t *testing.T, ctx context.Context, p *Playground) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, p.WSURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	writeFrame(t, ctx, c, "aibot_subscribe", "sub-1", map[string]string{"bot_id": "pg-bot", "secret": "pg-secret"})
	if ack := readFrame(t, ctx, c, ""); ack.Errcode != 0 {
		t.Fatalf("subscribe ack = %+v", ack)
	}
	return c
}

// waitView waits until card id's view satisfies ok.
func waitView(t *testing.T, ctx context.Context, p *Playground, id string, ok func(View) bool) View {
	t.Helper()
	for {
		views, _, changed := p.board.since(0)
		for _, v := range views {
			if v.ID == id && ok(v) {
				return v
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("card %s never got there: %+v", id, views)
		}
	}
}
