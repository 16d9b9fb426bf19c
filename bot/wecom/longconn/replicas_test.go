package longconn

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// partitionable is the real store with a switch that cuts this replica off
// from the holder lease, as a network partition from Redis would.
type partitionable struct {
	*testenv.Stores
	cut atomic.Bool
}

var errPartitioned = errors.New("test: replica cut off from Redis")

func (p *partitionable) AcquireHolder(ctx context.Context, bot, replica string, ttl time.Duration) (int64, error) {
	if p.cut.Load() {
		return 0, errPartitioned
	}
	return p.Stores.AcquireHolder(ctx, bot, replica, ttl)
}

func (p *partitionable) RenewHolder(ctx context.Context, bot, replica string, token int64, ttl time.Duration) (bool, error) {
	if p.cut.Load() {
		return false, errPartitioned
	}
	return p.Stores.RenewHolder(ctx, bot, replica, token, ttl)
}

type replica struct {
	conn   *Connection
	store  *partitionable
	cancel context.CancelFunc
	done   chan struct{}
}

func startReplica(t testing.TB, srv *wecomtest.LongConnServer, prefix, id string) *replica {
	t.Helper()
	st := &partitionable{Stores: testenv.OpenStores(t, prefix)}
	c, err := New(Config{
		Client:  Options{URL: srv.URL(), BotID: testBot, Secret: testSecret, BackoffMin: 5 * time.Millisecond},
		Replica: id, Store: st, HolderTTL: 900 * time.Millisecond, RenewEvery: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{conn: c, store: st, cancel: cancel, done: make(chan struct{})}
	go func() { _ = c.Run(ctx); close(r.done) }()
	t.Cleanup(r.stop)
	return r
}

func (r *replica) stop() { r.cancel(); <-r.done }

func (r *replica) holding() bool {
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	return r.conn.client != nil && r.conn.client.State().Subscribed
}

// holderOf waits until the fake has a subscribed connection and names the
// replica that holds it.
func holderOf(t *testing.T, srv *wecomtest.LongConnServer, rs ...*replica) *replica {
	t.Helper()
	ctx := waitCtx(t)
	for {
		for _, r := range rs {
			if r.holding() && srv.Subscribed() != 0 {
				return r
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("no replica holds the connection")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestReplicasOneConnectionAndRelay: of two replicas on one Redis only one
// subscribes; a frame rendered on the standby is pushed by the holder; when
// the holder is cut off from Redis it closes its connection before its
// lease lapses, the standby takes over and re-pushes the running stream,
// and at no moment were two connections subscribed.
func TestReplicasOneConnectionAndRelay(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret, KickCloseDelay: time.Hour})
	prefix := testenv.Prefix(t, "longconn-replicas")
	a := startReplica(t, srv, prefix, "A")
	b := startReplica(t, srv, prefix, "B")
	holder := holderOf(t, srv, a, b)
	standby := a
	if holder == a {
		standby = b
	}
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	s := Snapshot{ReqID: reqID, StreamID: "st", ChatID: "zhangsan", Seq: 1, Content: "<think>working</think>", Body: "", BodyEnd: 0}
	if shown, err := standby.conn.Present(ctx, s); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	first, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindAck && r.ReqID == reqID
	})
	if err != nil || first.Errcode != 0 {
		t.Fatalf("relayed frame ack = %+v, %v", first, err)
	}

	// Cut the holder off: it must close before its lease lapses, then the
	// standby subscribes and re-pushes the running stream's newest frame.
	oldConn := srv.Subscribed()
	holder.store.cut.Store(true)
	subs, err := srv.WaitCount(ctx, 2, wecomtest.IsRequest(CmdSubscribe))
	if err != nil {
		t.Fatal(err)
	}
	if subs[1].Conn == oldConn {
		t.Fatalf("second subscribe on the old connection %d", oldConn)
	}
	frames, err := srv.WaitCount(ctx, 2, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindRequest && r.ReqID == reqID })
	if err != nil {
		t.Fatal(err)
	}
	if frames[1].Conn != subs[1].Conn || frames[1].Stream().Content != "<think>working</think>" {
		t.Fatalf("re-pushed frame %+v on conn %d, want the running stream's newest frame on the new conn %d", frames[1].Stream(), frames[1].Conn, subs[1].Conn)
	}
	if holderOf(t, srv, a, b) != standby {
		t.Fatal("the cut-off replica still holds the connection")
	}
	// The final frame, rendered on the replica that lost the connection,
	// still reaches WeCom through the new holder.
	fin := s
	fin.Seq, fin.Content, fin.Finish, fin.Body, fin.BodyEnd = 2, "<think>working</think>done", true, "done", 4
	if shown, err := holder.conn.Present(ctx, fin); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	last, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil || last.Errcode != 0 || last.Stream().Content != "<think>working</think>done" {
		t.Fatalf("final frame = %+v (%v)", last, err)
	}
	if n := srv.MaxSubscribed(); n != 1 {
		t.Fatalf("max subscribed = %d, want 1", n)
	}
	if n := srv.Kicks(); n != 0 {
		t.Fatalf("kicks = %d, want 0", n)
	}
	// Every frame of the stream went out one at a time.
	assertOneInFlight(t, srv, reqID)
}

func assertOneInFlight(t *testing.T, srv *wecomtest.LongConnServer, reqID string) {
	t.Helper()
	if over := srv.Overlapping(reqID); len(over) > 0 {
		t.Fatalf("frame %d on %s sent while another awaited its ack", over[0].Seq, reqID)
	}
}

// TestConnectionWelcome: enter_chat is answered with the configured welcome
// on its own req_id, and never reaches the message handler.
func TestConnectionWelcome(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	handed := make(chan Frame, 1)
	c, err := New(Config{
		Client: Options{URL: srv.URL(), BotID: testBot, Secret: testSecret,
			OnCallback: func(_ context.Context, f Frame) { handed <- f }},
		Replica: "A", Store: testenv.OpenStores(t, testenv.Prefix(t, "longconn-welcome")),
		HolderTTL: 900 * time.Millisecond, RenewEvery: 300 * time.Millisecond, Welcome: "你好, I run Codex",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	wctx := waitCtx(t)
	if _, err := srv.Wait(wctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.Errcode == 0 }); err != nil {
		t.Fatal(err)
	}
	reqID, err := srv.PushEvent(wecomtest.LongConnEvent{UserID: "zhangsan", EventType: "enter_chat"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := srv.Wait(wctx, wecomtest.IsRequest(CmdWelcome))
	if err != nil {
		t.Fatal(err)
	}
	if w.ReqID != reqID || w.Errcode != 0 || string(w.Body) != `{"msgtype":"text","text":{"content":"你好, I run Codex"}}` {
		t.Fatalf("welcome = %+v %s, want the text on %s", w, w.Body, reqID)
	}
	msgReq, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if f := <-handed; f.Headers.ReqID != msgReq {
		t.Fatalf("handler got %s first, want the message %s (enter_chat is the channel's own)", f.Headers.ReqID, msgReq)
	}
	if ready, status := c.Status(); !ready || status != "connected: this replica holds the bot's long connection" {
		t.Fatalf("status = %v %q", ready, status)
	}
}

// TestConnectionBadSecretStatus: 853000 stops the connection and says so.
func TestConnectionBadSecretStatus(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	c, err := New(Config{
		Client:  Options{URL: srv.URL(), BotID: testBot, Secret: "wrong", BackoffMin: time.Millisecond},
		Replica: "A", Store: testenv.OpenStores(t, testenv.Prefix(t, "longconn-badsecret")),
		HolderTTL: 900 * time.Millisecond, RenewEvery: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	wctx := waitCtx(t)
	for {
		if _, stopped := c.holder.State(); stopped != nil {
			break
		}
		select {
		case <-wctx.Done():
			t.Fatal("connection never stopped on 853000")
		case <-time.After(5 * time.Millisecond):
		}
	}
	ready, status := c.Status()
	if ready || status != "stopped: "+ErrBadCredentials.Error() {
		t.Fatalf("status = %v %q", ready, status)
	}
	if n := len(srv.Requests(CmdSubscribe)); n != 1 {
		t.Fatalf("subscribes = %d, want 1 (no retry storm)", n)
	}
}

// TestConnectionFinishesAcrossReconnect: the connection drops mid-stream;
// the final frame, presented while the client is not yet subscribed again,
// is pushed on the new connection once it is.
func TestConnectionFinishesAcrossReconnect(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	r := startReplica(t, srv, testenv.Prefix(t, "longconn-reconnect"), "A")
	holderOf(t, srv, r)
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	s := Snapshot{ReqID: reqID, StreamID: "st", ChatID: "zhangsan", Seq: 1, Content: "<think>a</think>"}
	if shown, err := r.conn.Present(ctx, s); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	if _, err := srv.Wait(ctx, func(x wecomtest.Record) bool { return x.Kind == wecomtest.KindAck && x.ReqID == reqID }); err != nil {
		t.Fatal(err)
	}
	srv.SetAckPolicy(CmdSubscribe, wecomtest.AckHold)
	old := srv.DropSubscribed()
	// The second subscribe is sent only after the client dropped the old
	// connection; its ack is held, so the client is not subscribed now.
	if _, err := srv.WaitCount(ctx, 2, wecomtest.IsRequest(CmdSubscribe)); err != nil {
		t.Fatal(err)
	}
	fin := s
	fin.Seq, fin.Content, fin.Finish, fin.Body, fin.BodyEnd = 2, "<think>a</think>done", true, "done", 4
	if shown, err := r.conn.Present(ctx, fin); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	srv.SetAckPolicy(CmdSubscribe, wecomtest.AckNow)
	srv.Release(CmdSubscribe)
	last, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil || last.Conn == old || last.Errcode != 0 || last.Stream().Content != "<think>a</think>done" {
		t.Fatalf("final frame = %+v on conn %d (old %d), %v", last.Stream(), last.Conn, old, err)
	}
	if n := len(srv.Requests(CmdRespond)); n != 2 {
		t.Fatalf("stream frames = %d, want 2", n)
	}
}

// TestConnectionKeepsLeaseRedisLost: the lease vanishing from Redis (a
// restart) is re-taken by the holder's next renewal; the connection stays.
func TestConnectionKeepsLeaseRedisLost(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	r := startReplica(t, srv, testenv.Prefix(t, "longconn-redislost"), "A")
	holderOf(t, srv, r)
	ctx := waitCtx(t)
	_, token, err := r.store.Holder(ctx, testBot)
	if err != nil || token == 0 {
		t.Fatalf("holder token = %d, %v", token, err)
	}
	testenv.Redis(t).Del(ctx, r.store.DB.Keys().LongConn(testBot).Holder())
	for {
		if rep, tok, _ := r.store.Holder(ctx, testBot); rep == "A" && tok == token {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the holder never re-took its vanished lease")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if n := len(srv.Requests(CmdSubscribe)); n != 1 || !r.holding() {
		t.Fatalf("subscribes = %d, holding = %v; want the one connection kept", n, r.holding())
	}
}
