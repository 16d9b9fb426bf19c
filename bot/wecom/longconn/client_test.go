package longconn

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

const (
	testBot    = "aib-test"
	testSecret = "s3cret"
)

// runClient starts a client on srv with o's hooks and stops it when the
// test ends. The returned channel yields Run's result.
func runClient(t *testing.T, srv *wecomtest.LongConnServer, o Options) (*Client, <-chan error) {
	t.Helper()
	o.URL, o.BotID = srv.URL(), testBot
	if o.Secret == "" {
		o.Secret = testSecret
	}
	c, err := NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, finished := make(chan error, 1), make(chan struct{})
	go func() { done <- c.Run(ctx); close(finished) }()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return c, done
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestClientSubscribesAndReceivesCallbacks(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	got := make(chan Frame, 4)
	c, _ := runClient(t, srv, Options{OnCallback: func(_ context.Context, f Frame) { got <- f }})
	ctx := waitCtx(t)
	sub, err := srv.Wait(ctx, wecomtest.IsRequest(CmdSubscribe))
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ BotID, Secret string }
	_ = json.Unmarshal(sub.Body, &struct {
		BotID  *string `json:"bot_id"`
		Secret *string `json:"secret"`
	}{&body.BotID, &body.Secret})
	if sub.Errcode != 0 || body.BotID != testBot || body.Secret != testSecret {
		t.Fatalf("subscribe = %+v (body %+v), want an acked subscribe with the bot's credentials", sub, body)
	}
	if _, err := srv.Wait(ctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.ReqID == sub.ReqID }); err != nil {
		t.Fatal(err)
	}
	waitSubscribed(t, c)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "m1", UserID: "zhangsan", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	f := <-got
	if f.Cmd != CmdMsgCallback || f.Headers.ReqID != reqID || !json.Valid(f.Body) {
		t.Fatalf("callback = %+v, want %s on %s", f, CmdMsgCallback, reqID)
	}
	// A raw control character inside a JSON string is dropped, not fatal.
	srv.RegisterCallback("REQ_raw", "lisi")
	if err := srv.PushRaw([]byte("{\"cmd\":\"aibot_msg_callback\",\"headers\":{\"req_id\":\"REQ_raw\"},\"body\":{\"text\":{\"content\":\"a\x01b\rc\x1fd\x0bе\"}}}")); err != nil {
		t.Fatal(err)
	}
	f = <-got
	var b struct {
		Text struct{ Content string } `json:"text"`
	}
	if err := json.Unmarshal(f.Body, &b); err != nil || b.Text.Content != "abcdе" {
		t.Fatalf("sanitised callback text = %q (%v), want %q", b.Text.Content, err, "abcdе")
	}
}

func waitSubscribed(t *testing.T, c *Client) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		c.mu.Lock()
		s, changed := c.cur, c.changed
		c.mu.Unlock()
		if s != nil {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("client never subscribed")
		}
	}
}

func TestClientAckTimeoutIsUnknownOutcome(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	c, _ := runClient(t, srv, Options{AckTimeout: 50 * time.Millisecond})
	waitSubscribed(t, c)
	srv.SetAckPolicy(CmdSend, wecomtest.AckDrop)
	_, err := c.Request(waitCtx(t), CmdSend, NewReqID(CmdSend), map[string]any{"chatid": "x", "msgtype": "markdown"})
	if !errors.Is(err, ErrAckTimeout) {
		t.Fatalf("request without an ack: %v, want ErrAckTimeout", err)
	}
	_, err = c.Request(waitCtx(t), CmdRespond, "REQ_unknown", map[string]any{"msgtype": "stream", "stream": map[string]any{"id": "s"}})
	if Code(err) != CodeInvalidReqID {
		t.Fatalf("stream on an unknown req_id: %v, want errcode %d", err, CodeInvalidReqID)
	}
}

func TestClientBadCredentialsStopsWithoutRetry(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	c, done := runClient(t, srv, Options{Secret: "wrong", BackoffMin: time.Millisecond})
	if err := <-done; !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("Run = %v, want ErrBadCredentials", err)
	}
	if st := c.State(); !st.Stopped || !errors.Is(st.Err, ErrBadCredentials) {
		t.Fatalf("state = %+v, want stopped with ErrBadCredentials", st)
	}
	subs := srv.Requests(CmdSubscribe)
	if len(subs) != 1 || subs[0].Errcode != wecomtest.CodeBadCredentials {
		t.Fatalf("subscribes = %d (%+v), want exactly one, refused with 853000", len(subs), subs)
	}
}

func TestClientKickedStopsWithoutReconnect(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret, KickCloseDelay: time.Hour})
	c, done := runClient(t, srv, Options{BackoffMin: time.Millisecond})
	waitSubscribed(t, c)
	ctx := waitCtx(t)
	ws, _, err := websocket.Dial(ctx, srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	sub := `{"cmd":"aibot_subscribe","headers":{"req_id":"aibot_subscribe_other"},"body":{"bot_id":"aib-test","secret":"s3cret"}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrKicked) {
		t.Fatalf("Run = %v, want ErrKicked", err)
	}
	// Run has returned: no reconnect can follow. One subscribe was ours.
	if n := len(srv.Requests(CmdSubscribe)); n != 2 {
		t.Fatalf("subscribes = %d, want 2 (ours, then the other's)", n)
	}
	if _, err := srv.Wait(ctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindClose && r.Conn == 1 }); err != nil {
		t.Fatal(err)
	}
}

// TestClientHeartbeatLossReconnects: with pings unanswered, the client
// sends exactly two, declares the connection dead at the third tick, and
// subscribes again.
func TestClientHeartbeatLossReconnects(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	srv.SetAckPolicy(CmdPing, wecomtest.AckDrop)
	runClient(t, srv, Options{Heartbeat: 20 * time.Millisecond, BackoffMin: time.Millisecond})
	ctx := waitCtx(t)
	subs, err := srv.WaitCount(ctx, 2, wecomtest.IsRequest(CmdSubscribe))
	if err != nil {
		t.Fatal(err)
	}
	pings := 0
	closed := false
	for _, r := range srv.Records() {
		if r.Conn == subs[0].Conn && r.Kind == wecomtest.KindRequest && r.Cmd == CmdPing {
			pings++
		}
		if r.Conn == subs[0].Conn && r.Kind == wecomtest.KindClose {
			closed = true
		}
	}
	if pings != 2 || !closed || subs[1].Conn == subs[0].Conn {
		t.Fatalf("first connection: %d pings, closed=%v; second subscribe on conn %d; want 2 pings, closed, a new conn", pings, closed, subs[1].Conn)
	}
}

// TestClientBackoffDoublesAndResets: refused attempts wait 1, 2, 4, 8, 8
// (× BackoffMin, capped); a subscribe resets the count.
func TestClientBackoffDoublesAndResets(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	srv.Refuse(5)
	var mu sync.Mutex
	var retries []time.Duration
	subscribed := make(chan struct{}, 8)
	c, _ := runClient(t, srv, Options{BackoffMin: time.Millisecond, BackoffMax: 8 * time.Millisecond, OnState: func(s State) {
		mu.Lock()
		defer mu.Unlock()
		if s.Retry > 0 {
			retries = append(retries, s.Retry)
		}
		if s.Subscribed {
			subscribed <- struct{}{}
		}
	}})
	<-subscribed
	waitSubscribed(t, c)
	srv.DropSubscribed()
	<-subscribed
	mu.Lock()
	defer mu.Unlock()
	want := []time.Duration{1, 2, 4, 8, 8, 1}
	if len(retries) != len(want) {
		t.Fatalf("retry delays = %v, want %v ms", retries, want)
	}
	for i := range want {
		if retries[i] != want[i]*time.Millisecond {
			t.Fatalf("retry delays = %v, want %v ms", retries, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 1, 2: 2, 3: 4, 4: 8, 5: 16, 6: 30, 7: 30, 50: 30} {
		if got := Backoff(n, time.Second, 30*time.Second); got != want*time.Second {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, want*time.Second)
		}
	}
}
