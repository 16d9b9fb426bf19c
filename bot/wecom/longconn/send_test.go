package longconn

import (
	"context"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// TestSendReachesWeComOnce: a send made while no replica holds the
// connection waits in Redis and is sent by the first holder once it is
// subscribed; one made on the standby goes out through the holder; each
// exactly once, while the holder also hears of them by pub/sub.
func TestSendReachesWeComOnce(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(t, "longconn-send")
	ctx := waitCtx(t)
	// g1 talks to the bot first (WeCom refuses a send to a chat that never
	// did); then nobody holds the connection.
	gone := startReplica(t, srv, prefix, "gone")
	holderOf(t, srv, gone)
	if _, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	gone.stop()
	early, err := New(Config{Client: Options{URL: srv.URL(), BotID: testBot, Secret: testSecret},
		Replica: "early", Store: testenv.OpenStores(t, prefix)})
	if err != nil {
		t.Fatal(err)
	}
	if err := early.Send(ctx, map[string]any{"chatid": "g1", "msgtype": "markdown", "markdown": map[string]string{"content": "before anyone held"}}); err != nil {
		t.Fatal(err)
	}
	a := startReplica(t, srv, prefix, "A")
	first, err := srv.Wait(ctx, wecomtest.IsRequest(CmdSend))
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Markdown(); got != "before anyone held" || first.Errcode != 0 || first.Conn != srv.Subscribed() {
		t.Fatalf("first send = %q (errcode %d) on conn %d, want the waiting one on A's %d", got, first.Errcode, first.Conn, srv.Subscribed())
	}
	b := startReplica(t, srv, prefix, "B")
	if holderOf(t, srv, a, b) != a {
		t.Fatal("B holds the connection, want A")
	}
	if err := b.conn.Send(ctx, map[string]any{"chatid": "g1", "msgtype": "markdown", "markdown": map[string]string{"content": "from the standby"}}); err != nil {
		t.Fatal(err)
	}
	second, err := srv.WaitCount(ctx, 2, wecomtest.IsRequest(CmdSend))
	if err != nil {
		t.Fatal(err)
	}
	if got := second[1].Markdown(); got != "from the standby" || second[1].Conn != first.Conn {
		t.Fatalf("second send = %q on conn %d, want the standby's on A's conn %d", got, second[1].Conn, first.Conn)
	}
	// A third, made on the holder itself, fences the count: the relay hands
	// sends over in announcement order and takes each once.
	if err := a.conn.Send(ctx, map[string]any{"chatid": "g1", "msgtype": "markdown", "markdown": map[string]string{"content": "from the holder"}}); err != nil {
		t.Fatal(err)
	}
	all, err := srv.WaitCount(ctx, 3, wecomtest.IsRequest(CmdSend))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range srv.Requests(CmdSend) {
		got = append(got, r.Markdown())
		if r.Errcode != 0 {
			t.Errorf("send %q refused: errcode %d %s", r.Markdown(), r.Errcode, r.Errmsg)
		}
	}
	if len(got) != 3 || all[2].Markdown() != "from the holder" {
		t.Fatalf("sends = %q, want each of the three once", got)
	}
	if ids, err := a.store.PendingSends(ctx, testBot); err != nil || len(ids) != 0 {
		t.Fatalf("sends still waiting = %q, %v; want none", ids, err)
	}
}

// TestSendNotWrittenGoesToTheNextHolder: the holder took a send but lost
// the lease before it could write it (its connection was down, the new one
// not yet subscribed): the send goes back to Redis, and the next holder
// sends it, once.
func TestSendNotWrittenGoesToTheNextHolder(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret, KickCloseDelay: time.Hour})
	prefix := testenv.Prefix(t, "longconn-send-back")
	ctx := waitCtx(t)
	a := startReplica(t, srv, prefix, "A")
	holderOf(t, srv, a)
	if _, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	b := startReplica(t, srv, prefix, "B")
	// A's connection drops and its next subscribe is held: A holds the
	// lease with no connection to write on.
	srv.SetAckPolicy(CmdSubscribe, wecomtest.AckHold)
	srv.DropSubscribed()
	if _, err := srv.WaitCount(ctx, 2, wecomtest.IsRequest(CmdSubscribe)); err != nil {
		t.Fatal(err)
	}
	if err := b.conn.Send(ctx, map[string]any{"chatid": "g1", "msgtype": "markdown", "markdown": map[string]string{"content": "card"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "A to take the send", func() bool {
		ids, err := a.store.PendingSends(ctx, testBot)
		return err == nil && len(ids) == 0
	})
	a.store.cut.Store(true)
	waitFor(t, ctx, "A to give the connection up", func() bool { token, _ := a.conn.holder.State(); return token == 0 })
	srv.SetAckPolicy(CmdSubscribe, wecomtest.AckNow)
	srv.Release(CmdSubscribe)
	sent, err := srv.Wait(ctx, wecomtest.IsRequest(CmdSend))
	if err != nil {
		t.Fatal(err)
	}
	if holderOf(t, srv, a, b) != b || sent.Markdown() != "card" || sent.Errcode != 0 || sent.Conn != srv.Subscribed() {
		t.Fatalf("send %q (errcode %d) on conn %d, want it by B on its conn %d", sent.Markdown(), sent.Errcode, sent.Conn, srv.Subscribed())
	}
	if ids, _ := b.store.PendingSends(ctx, testBot); len(ids) != 0 {
		t.Fatalf("sends still waiting = %q, want none", ids)
	}
	if n := len(srv.Requests(CmdSend)); n != 1 {
		t.Fatalf("aibot_send_msg requests = %d, want 1", n)
	}
}

// waitFor waits until ok holds, checking on every short tick.
func waitFor(t *testing.T, ctx context.Context, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestSendMissedAnnouncementIsSwept: a send whose pub/sub announcement the
// holder never heard (its subscription was re-dialled at that moment; here
// the send is written without one) is still sent, once, by the holder's
// periodic sweep.
func TestSendMissedAnnouncementIsSwept(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(t, "longconn-send-swept")
	ctx := waitCtx(t)
	a := startReplica(t, srv, prefix, "A")
	holderOf(t, srv, a)
	if _, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	// Subscribed and swept once already; now a send lands unannounced.
	if _, err := srv.Wait(ctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.Errcode == 0 }); err != nil {
		t.Fatal(err)
	}
	raw := testenv.Redis(t)
	body := `{"chatid":"g1","msgtype":"markdown","markdown":{"content":"never announced"}}`
	if err := raw.HSet(ctx, store.NewKeys(prefix).LongConn(testBot).Sends(), NewReqID(CmdSend), body).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := srv.Wait(ctx, wecomtest.IsRequest(CmdSend))
	if err != nil {
		t.Fatal(err)
	}
	if got.Markdown() != "never announced" || got.Errcode != 0 {
		t.Fatalf("send = %q (errcode %d), want the unannounced one", got.Markdown(), got.Errcode)
	}
	if ids, err := a.store.PendingSends(ctx, testBot); err != nil || len(ids) != 0 {
		t.Fatalf("sends still waiting = %q, %v; want none", ids, err)
	}
	if n := len(srv.Requests(CmdSend)); n != 1 {
		t.Fatalf("%d sends reached WeCom, want 1", n)
	}
}
