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

func newLongConnPlayground(t *testing.T) *Playground {
	t.Helper()
	p, err := New(Config{LongConn: true, AIBotID: "pg-bot", Secret: "pg-secret", User: "playground"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// subscribe dials the playground's long-connection server as the bot does
// and subscribes; the context bounds the test's waits.
func subscribe(t *testing.T, p *Playground) (context.Context, *websocket.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, p.WSURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	writeFrame(t, ctx, c, "aibot_subscribe", "sub-1", map[string]string{"bot_id": "pg-bot", "secret": "pg-secret"})
	if ack := readFrame(t, ctx, c, ""); ack.Errcode != 0 {
		t.Fatalf("subscribe ack = %+v", ack)
	}
	return ctx, c
}

// wsFrame is a long-connection frame as the bot writes and reads it.
type wsFrame struct {
	Cmd     string          `json:"cmd,omitempty"`
	Headers map[string]any  `json:"headers"`
	Body    json.RawMessage `json:"body,omitempty"`
	Errcode int             `json:"errcode"`
}

func writeFrame(t *testing.T, ctx context.Context, c *websocket.Conn, cmd, reqID string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	data, _ := json.Marshal(wsFrame{Cmd: cmd, Headers: map[string]any{"req_id": reqID}, Body: b})
	if err := c.Write(ctx, websocket.MessageText, data); err != nil {
		t.Fatal(err)
	}
}

// readFrame reads the next frame that is not an ack.
func readFrame(t *testing.T, ctx context.Context, c *websocket.Conn, want string) wsFrame {
	t.Helper()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read while waiting for %s: %v", want, err)
		}
		var f wsFrame
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		if f.Cmd == want || (want == "" && f.Cmd == "") {
			return f
		}
	}
}

// TestLongConnPlaysServer: in long-connection mode the playground is the
// server a bot dials (on loopback); a typed message arrives as
// aibot_msg_callback, and the frames answered on its req_id become the card.
func TestLongConnPlaysServer(t *testing.T) {
	p := newLongConnPlayground(t)
	if !strings.HasPrefix(p.WSURL(), "ws://127.0.0.1:") {
		t.Fatalf("WSURL = %q, want a loopback ws:// URL", p.WSURL())
	}
	ctx, c := subscribe(t, p)
	id, err := p.Send("hi")
	if err != nil {
		t.Fatal(err)
	}
	cb := readFrame(t, ctx, c, "aibot_msg_callback")
	reqID, _ := cb.Headers["req_id"].(string)
	var body struct {
		MsgID string `json:"msgid"`
		From  struct {
			UserID string `json:"userid"`
		} `json:"from"`
		Text struct {
			Content string `json:"content"`
		} `json:"text"`
	}
	if err := json.Unmarshal(cb.Body, &body); err != nil || body.MsgID != id || body.From.UserID != "playground" || body.Text.Content != "hi" {
		t.Fatalf("callback %s = %+v (%v), want msgid %s from playground saying hi", cb.Body, body, err, id)
	}
	writeFrame(t, ctx, c, "aibot_respond_msg", reqID, map[string]any{"msgtype": "stream",
		"stream": map[string]any{"id": "s1", "finish": true, "content": "<think>\nlooking\n</think>\n\nhello"}})
	for {
		views, _, changed := p.board.since(0)
		if len(views) == 1 && views[0].State == StateDone {
			if v := views[0]; !strings.Contains(v.Progress, "looking") || !strings.Contains(v.Body, "hello") || strings.Contains(v.Body, "looking") {
				t.Fatalf("card = %+v, want the <think> part as progress and hello as body", v)
			}
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the card never finished: %+v", views)
		}
	}
}

// TestLongConnKeepsGuards: the long-connection playground answers only
// loopback clients under a loopback Host, and refuses cross-origin sends.
func TestLongConnKeepsGuards(t *testing.T) {
	h := newLongConnPlayground(t).Handler()
	cases := []struct {
		name, host, remote, origin string
		want                       int
	}{
		{"remote client", "127.0.0.1:8080", "192.0.2.7:5000", "", http.StatusForbidden},
		{"foreign Host", "rebind.example:8080", "127.0.0.1:5000", "", http.StatusMisdirectedRequest},
		{"cross-origin", "127.0.0.1:8080", "127.0.0.1:5000", "http://evil.example", http.StatusForbidden},
	}
	for _, tc := range cases {
		r := httptest.NewRequest(http.MethodPost, "http://"+tc.host+"/playground/send", strings.NewReader(`{"text":"hi"}`))
		r.RemoteAddr = tc.remote
		r.Header.Set("Content-Type", "application/json")
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: status %d (%s), want %d", tc.name, w.Code, w.Body.String(), tc.want)
		}
	}
}
