package wecomtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
)

const (
	token  = "simToken"
	aesKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	botID  = "aibot-1"
)

// clock is a settable time source shared by the simulator and the test bot.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// echoBot is a tiny bot endpoint built only on the bot/wecom protocol layer:
// it opens one stream per msgid (deduping redeliveries), finishes it after
// `steps` refreshes, and records every callback it parsed.
type echoBot struct {
	t       *testing.T
	c       *wecom.Crypter
	now     func() time.Time
	steps   int
	mu      sync.Mutex
	byMsg   map[string]string // msgid → stream id
	text    map[string]string // stream id → user text
	served  map[string]int    // stream id → refreshes answered
	seen    []wecom.Callback
	opened  int
	tamper  func(body []byte) []byte // rewrite the reply, for negative tests
	stallN  int                      // stall this many POSTs until the client gives up
	stalled int
}

func newEchoBot(t *testing.T, now func() time.Time, steps int) *echoBot {
	c, err := wecom.NewCrypter(token, aesKey, wecom.AIBotReceiveID)
	if err != nil {
		t.Fatal(err)
	}
	return &echoBot{t: t, c: c, now: now, steps: steps, byMsg: map[string]string{}, text: map[string]string{}, served: map[string]int{}}
}

func (b *echoBot) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		q, err := wecom.ParseQuery(r.URL.Query())
		if err == nil {
			var msg []byte
			if msg, err = b.c.VerifyURL(q); err == nil {
				w.Write(msg)
				return
			}
		}
		http.Error(w, err.Error(), wecom.HTTPStatus(err))
		return
	}
	b.mu.Lock()
	if b.stalled < b.stallN {
		b.stalled++
		b.mu.Unlock()
		// The server notices the client hanging up only once the body is read.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // WeCom gave up on this delivery
		return
	}
	b.mu.Unlock()
	q, pt, err := b.c.OpenRequest(r, b.now())
	if err != nil {
		http.Error(w, err.Error(), wecom.HTTPStatus(err))
		return
	}
	cb, err := wecom.ParseCallback(pt)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.seen = append(b.seen, cb)
	var f wecom.StreamFrame
	switch cb.Kind {
	case wecom.KindMessage:
		id, ok := b.byMsg[cb.MsgID]
		if !ok {
			b.opened++
			id = fmt.Sprintf("stream-%d", b.opened)
			b.byMsg[cb.MsgID] = id
			b.text[id] = cb.Text
		}
		f = wecom.StreamFrame{ID: id, Content: "<think>reading</think>", Finish: b.steps == 0}
	case wecom.KindStreamRefresh:
		b.served[cb.StreamID]++
		n := b.served[cb.StreamID]
		f = wecom.StreamFrame{ID: cb.StreamID, Content: fmt.Sprintf("<think>step %d</think>", n)}
		if n >= b.steps {
			f.Content, f.Finish = "echo: "+b.text[cb.StreamID], true
		}
	case wecom.KindEvent:
		b.mu.Unlock()
		body, _ := b.c.Seal([]byte(`{"msgtype":"text","text":{"content":"welcome"}}`), q.Timestamp, q.Nonce)
		w.Write(body)
		return
	}
	tamper := b.tamper
	b.mu.Unlock()
	body, err := b.c.SealStream(f, q.Timestamp, q.Nonce)
	if err != nil {
		b.t.Error(err)
		return
	}
	if tamper != nil {
		body = tamper(body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func setup(t *testing.T, steps int, mod func(*Config)) (*Sim, *echoBot, *clock) {
	t.Helper()
	clk := &clock{t: time.Unix(1_750_000_000, 0)}
	bot := newEchoBot(t, clk.Now, steps)
	srv := httptest.NewServer(bot)
	t.Cleanup(srv.Close)
	cfg := Config{URL: srv.URL + "/wecom/aibot", Token: token, EncodingAESKey: aesKey, AIBotID: botID, Now: clk.Now}
	if mod != nil {
		mod(&cfg)
	}
	sim, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sim, bot, clk
}

func TestVerifyURL(t *testing.T) {
	sim, _, _ := setup(t, 1, nil)
	if err := sim.VerifyURL(context.Background()); err != nil {
		t.Fatal(err)
	}
	var se *StatusError
	if err := sim.VerifyURL(context.Background(), WithForgedSignature()); !errors.As(err, &se) || se.Status != 401 {
		t.Fatalf("forged URL check: %v", err)
	}
}

func TestMessageReplyRefreshLoop(t *testing.T) {
	sim, bot, _ := setup(t, 3, nil)
	ctx := context.Background()
	st, err := sim.Send(ctx, Message{MsgID: "msg-1", From: "zhangsan", Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if st.First != (Frame{ID: "stream-1", Content: "<think>reading</think>"}) {
		t.Fatalf("first frame = %+v", st.First)
	}
	var seen []Frame
	final, err := sim.Follow(ctx, st.ID, time.Millisecond, func(f Frame) { seen = append(seen, f) })
	if err != nil {
		t.Fatal(err)
	}
	want := []Frame{
		{ID: "stream-1", Content: "<think>step 1</think>"},
		{ID: "stream-1", Content: "<think>step 2</think>"},
		{ID: "stream-1", Content: "echo: hello", Finish: true},
	}
	if !reflect.DeepEqual(seen, want) || final != want[2] {
		t.Fatalf("frames = %+v, final %+v", seen, final)
	}
	// A finished stream is not refreshed again, as WeCom stops.
	if f, err := sim.Follow(ctx, st.ID, time.Millisecond, nil); err != nil || f != want[2] {
		t.Fatalf("Follow after finish = %+v, %v", f, err)
	}

	// What the bot parsed is exactly what WeCom sends.
	bot.mu.Lock()
	defer bot.mu.Unlock()
	if len(bot.seen) != 4 {
		t.Fatalf("bot saw %d callbacks, want 4", len(bot.seen))
	}
	msg := bot.seen[0]
	if msg.Kind != wecom.KindMessage || msg.MsgID != "msg-1" || msg.AIBotID != botID || msg.UserID != "zhangsan" ||
		msg.ChatType != wecom.ChatSingle || msg.Text != "hello" || msg.ResponseURL != "" {
		t.Fatalf("message callback = %+v", msg)
	}
	for i, cb := range bot.seen[1:] {
		if cb.Kind != wecom.KindStreamRefresh || cb.StreamID != "stream-1" || cb.UserID != "zhangsan" || cb.MsgID == "msg-1" || cb.MsgID == "" {
			t.Fatalf("refresh %d = %+v", i, cb)
		}
	}
}

func TestGroupMixedAndVoice(t *testing.T) {
	rs, err := NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	sim, bot, _ := setup(t, 1, func(c *Config) { c.ResponseURLs = rs })
	ctx := context.Background()
	if _, err := sim.Send(ctx, Message{MsgID: "g1", From: "u1", ChatID: "chat-9", Text: "@wecodex\u2005run tests"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Send(ctx, Message{MsgID: "x1", From: "u1", MsgType: "mixed", Items: []Item{{Text: "see"}, {ImageURL: "https://img/1"}, {Text: "this"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Send(ctx, Message{MsgID: "v1", From: "u1", MsgType: "voice", Text: "语音"}); err != nil {
		t.Fatal(err)
	}
	bot.mu.Lock()
	defer bot.mu.Unlock()
	g, x, v := bot.seen[0], bot.seen[1], bot.seen[2]
	if g.ChatType != wecom.ChatGroup || g.ChatID != "chat-9" || g.Text != "run tests" || g.RawText != "@wecodex\u2005run tests" || g.ResponseURL != rs.URL("g1") {
		t.Errorf("group = %+v", g)
	}
	if x.MsgType != "mixed" || x.Text != "see\nthis" || len(x.Media) != 1 || x.Media[0].URL != "https://img/1" {
		t.Errorf("mixed = %+v", x)
	}
	if v.MsgType != "voice" || v.Text != "语音" {
		t.Errorf("voice = %+v", v)
	}
}

func TestRedeliveriesGetTheSameStream(t *testing.T) {
	sim, bot, _ := setup(t, 1, nil)
	st, err := sim.Send(context.Background(), Message{MsgID: "dup", From: "u"}, WithRedeliveries(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Redelivered) != 2 || st.Redelivered[0].ID != st.ID || st.Redelivered[1].ID != st.ID {
		t.Fatalf("redelivered frames = %+v, first %s", st.Redelivered, st.ID)
	}
	bot.mu.Lock()
	defer bot.mu.Unlock()
	if len(bot.seen) != 3 || bot.opened != 1 {
		t.Fatalf("bot saw %d deliveries and opened %d streams, want 3 and 1", len(bot.seen), bot.opened)
	}
}

func TestNegativeDeliveries(t *testing.T) {
	sim, bot, _ := setup(t, 1, nil)
	ctx := context.Background()
	cases := []struct {
		name   string
		opt    Option
		status int
	}{
		{"forged signature", WithForgedSignature(), 401},
		{"stale timestamp", WithTimestampOffset(-10 * time.Minute), 403},
		{"future timestamp", WithTimestampOffset(10 * time.Minute), 403},
		{"2 MiB body", WithBodySize(2 << 20), 413},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.Send(ctx, Message{From: "u", Text: "x"}, tc.opt)
			var se *StatusError
			if !errors.As(err, &se) || se.Status != tc.status {
				t.Fatalf("err = %v, want HTTP %d", err, tc.status)
			}
		})
	}
	// A body just under the cap is still a valid callback.
	if _, err := sim.Send(ctx, Message{From: "u", Text: "x"}, WithBodySize(wecom.MaxBodyBytes)); err != nil {
		t.Fatalf("body at the cap: %v", err)
	}
	bot.mu.Lock()
	defer bot.mu.Unlock()
	if len(bot.seen) != 1 {
		t.Fatalf("bot parsed %d callbacks, want only the valid one", len(bot.seen))
	}
}

func TestBadRepliesAreCaught(t *testing.T) {
	sim, bot, _ := setup(t, 1, nil)
	bot.tamper = func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"msgsignature":"`, `"msgsignature":"0`, 1))
	}
	_, err := sim.Send(context.Background(), Message{From: "u", Text: "x"})
	if !errors.Is(err, ErrReplySignature) {
		t.Fatalf("badly signed reply: %v", err)
	}
	bot.tamper = func([]byte) []byte { return nil }
	if _, err := sim.Send(context.Background(), Message{From: "u", Text: "x"}); !errors.Is(err, ErrNoReply) {
		t.Fatalf("empty reply: %v", err)
	}
}

func TestTimeoutRetries(t *testing.T) {
	sim, bot, _ := setup(t, 1, func(c *Config) { c.ReplyTimeout = 100 * time.Millisecond; c.TimeoutRetries = TimeoutRetries })
	bot.stallN = 2
	d, err := sim.Deliver(context.Background(), []byte(`{"msgid":"r1","aibotid":"aibot-1","chattype":"single","from":{"userid":"u"},"msgtype":"text","text":{"content":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Attempts != 3 {
		t.Fatalf("attempts = %d, want 3 (two unanswered, then answered)", d.Attempts)
	}
	bot.mu.Lock()
	bot.stallN, bot.stalled = 10, 0
	bot.mu.Unlock()
	_, err = sim.Send(context.Background(), Message{From: "u", Text: "x"})
	if !errors.Is(err, ErrReplyTimeout) {
		t.Fatalf("never answered: %v", err)
	}
}

func TestFollowStopsAtWeComLimit(t *testing.T) {
	sim, _, clk := setup(t, 1000, nil)
	ctx := context.Background()
	st, err := sim.Send(ctx, Message{From: "u", Text: "long"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	last, err := sim.Follow(ctx, st.ID, time.Millisecond, func(Frame) { n++; clk.Add(2 * time.Minute) })
	if !errors.Is(err, ErrStreamExpired) {
		t.Fatalf("err = %v, want ErrStreamExpired", err)
	}
	if n != 3 || last.Content != "<think>step 3</think>" {
		t.Fatalf("refreshes = %d, last %+v; want 3 refreshes in 6 minutes", n, last)
	}
}

func TestEnterChatEvent(t *testing.T) {
	sim, bot, _ := setup(t, 1, nil)
	r, err := sim.SendEvent(context.Background(), "u", "enter_chat")
	if err != nil {
		t.Fatal(err)
	}
	if r.MsgType != "text" || r.Text.Content != "welcome" {
		t.Fatalf("reply = %+v", r)
	}
	bot.mu.Lock()
	defer bot.mu.Unlock()
	if ev := bot.seen[0]; ev.Kind != wecom.KindEvent || ev.Event.Type != "enter_chat" || ev.UserID != "u" || ev.CreateTime != 1_750_000_000 {
		t.Fatalf("event = %+v", ev)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "not a url", Token: token, EncodingAESKey: aesKey, AIBotID: botID}, `wecomtest: endpoint URL "not a url": parse "not a url": invalid URI for request`},
		{Config{URL: "http://x/", Token: token, EncodingAESKey: aesKey}, "wecomtest: AIBotID is empty"},
		{Config{URL: "http://x/", Token: token, EncodingAESKey: "short", AIBotID: botID}, "wecomtest: EncodingAESKey has 5 characters, want 43"},
	} {
		if _, err := New(tc.cfg); err == nil || err.Error() != tc.want {
			t.Errorf("New = %v, want %q", err, tc.want)
		}
	}
}
