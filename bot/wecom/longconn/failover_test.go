package longconn

import (
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestTakeoverPushesTheTurnNotAQueuedReply: a queue-position reply that
// reaches Redis after the turn's frame (the intake answered the message just
// as a replica started its turn) does not replace the turn's frame there, so
// a new holder re-pushes the turn's frame, not "queued".
func TestTakeoverPushesTheTurnNotAQueuedReply(t *testing.T) {
	srv, a, b := holderAndStandby(t, "longconn-queued-late")
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	turn := Snapshot{ReqID: reqID, StreamID: "st", ChatID: "zhangsan", Seq: seqTurn + 1, Content: "<think>turn running</think>"}
	if shown, err := b.conn.Present(ctx, turn); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	if _, err := srv.Wait(ctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.ReqID == reqID }); err != nil {
		t.Fatal(err)
	}
	shown, err := NewChannel(b.conn, nil).Show(ctx, bot.Reply{Conversation: wecom.SingleChat("zhangsan"), User: "zhangsan",
		To: bot.ReplyTo{Stream: "st", Ref: reqID}, State: bot.ReplyWaiting, Text: "⏳ Queued (position 1)"})
	if err != nil || shown {
		t.Fatalf("late queue position shown = %v, %v; want not shown over the turn's frame", shown, err)
	}
	oldConn := srv.Subscribed()
	a.stop()
	sub, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == CmdSubscribe && r.Conn != oldConn
	})
	if err != nil {
		t.Fatal(err)
	}
	again, err := srv.WaitFrom(ctx, sub.Seq, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindRequest && r.ReqID == reqID })
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Stream().Content; c != turn.Content {
		t.Fatalf("new holder pushed %q, want the turn's frame %q", c, turn.Content)
	}
}

// TestHolderKilledAwaitingFinalAckNoRepeat: the holder (a process of its
// own) writes a stream's final frame and is killed with SIGKILL before the
// ack comes. WeCom may well show that frame, so the new holder must not push
// it again: the stream was recorded ended before the frame went out. The
// other running stream is re-pushed as usual.
func TestHolderKilledAwaitingFinalAckNoRepeat(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret, KickCloseDelay: time.Hour})
	prefix := testenv.Prefix(t, "longconn-kill-final")
	child := startReplicaProcess(t, srv, prefix)
	ctx := waitCtx(t)
	b := startReplica(t, srv, prefix, "B")
	b.store.cut.Store(true) // B takes over only when the test says

	ended, running := pushAcked(t, srv, b, "ended"), pushAcked(t, srv, b, "running")
	srv.SetAckPolicy(CmdRespond, wecomtest.AckHold)
	fin := Snapshot{ReqID: ended, StreamID: "st-ended", ChatID: "zhangsan", Seq: 2, Content: "<think>p</think>done", Finish: true, Body: "done", BodyEnd: 4}
	if shown, err := b.conn.Present(ctx, fin); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	if _, err := srv.Wait(ctx, wecomtest.IsFinalStream(ended)); err != nil {
		t.Fatal(err)
	}
	oldConn := srv.Subscribed()
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	srv.SetAckPolicy(CmdRespond, wecomtest.AckNow)

	streams, err := b.store.RunningStreams(ctx, testBot)
	if _, listed := streams[ended]; err != nil || listed || len(streams) != 1 {
		t.Fatalf("running streams after the kill: %d (%v), the ended one listed %v; want only the running one", len(streams), err, listed)
	}
	b.store.cut.Store(false)
	if _, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindAck && r.ReqID == running && r.Conn != oldConn
	}); err != nil {
		t.Fatal(err)
	}
	waitIdle(t, b.conn)
	if finals := len(srv.FinalFrames(ended)); finals != 1 || len(srv.Requests(CmdSend)) != 0 {
		t.Fatalf("final frames %d, aibot_send_msg %d; want the final frame once and nothing else", len(srv.FinalFrames(ended)), len(srv.Requests(CmdSend)))
	}
}

// holderAndStandby starts replica A, waits until it holds the connection,
// then starts B, which stands by.
func holderAndStandby(t *testing.T, name string) (*wecomtest.LongConnServer, *replica, *replica) {
	t.Helper()
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret, KickCloseDelay: time.Hour})
	prefix := testenv.Prefix(t, name)
	a := startReplica(t, srv, prefix, "A")
	if holderOf(t, srv, a) != a {
		t.Fatal("A does not hold the connection")
	}
	return srv, a, startReplica(t, srv, prefix, "B")
}

// pushAcked pushes a message, presents a first frame of its stream through
// r and waits until the holder's push of it was acked; it returns the req_id.
func pushAcked(t *testing.T, srv *wecomtest.LongConnServer, r *replica, text string) string {
	t.Helper()
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	s := Snapshot{ReqID: reqID, StreamID: "st-" + text, ChatID: "zhangsan", Seq: 1, Content: "<think>p</think>"}
	if shown, err := r.conn.Present(ctx, s); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	if _, err := srv.Wait(ctx, func(x wecomtest.Record) bool { return x.Kind == wecomtest.KindAck && x.ReqID == reqID }); err != nil {
		t.Fatal(err)
	}
	return reqID
}

// waitIdle waits until c holds the connection and its pusher has nothing
// left to push.
func waitIdle(t *testing.T, c *Connection) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		c.mu.Lock()
		p := c.local
		c.mu.Unlock()
		if p != nil && p.idle() {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the pusher never went idle")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (p *Pusher) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.streams {
		if st.busy {
			return false
		}
	}
	return true
}

// TestStoppingHolderGivesBackAnUnsentFinal: a holder stops (shutdown) with
// a stream's final frame claimed but never written (its connection was
// down): it gives the stream back, and the next holder pushes the final
// frame, once.
func TestStoppingHolderGivesBackAnUnsentFinal(t *testing.T) {
	srv, a, b := holderAndStandby(t, "longconn-unsent-final")
	ctx := waitCtx(t)
	reqID := pushAcked(t, srv, a, "unsent")
	srv.SetAckPolicy(CmdSubscribe, wecomtest.AckHold)
	oldConn := srv.DropSubscribed()
	if _, err := srv.WaitCount(ctx, 2, wecomtest.IsRequest(CmdSubscribe)); err != nil {
		t.Fatal(err)
	}
	fin := Snapshot{ReqID: reqID, StreamID: "st-unsent", ChatID: "zhangsan", Seq: 2, Content: "<think>p</think>done", Finish: true, Body: "done", BodyEnd: 4}
	if shown, err := a.conn.Present(ctx, fin); err != nil || !shown {
		t.Fatalf("present: shown %v, %v", shown, err)
	}
	// A claims the final frame (its stream leaves the running set), then
	// waits for a connection to write it on.
	for {
		running, err := a.store.RunningStreams(ctx, testBot)
		if _, listed := running[reqID]; err == nil && !listed {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("A never claimed the final frame")
		case <-time.After(5 * time.Millisecond):
		}
	}
	a.stop()
	srv.SetAckPolicy(CmdSubscribe, wecomtest.AckNow)
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if final.Conn == oldConn || final.Errcode != 0 || final.Stream().Content != fin.Content || !b.holding() {
		t.Fatalf("final frame %q on conn %d (errcode %d), want %q pushed by B on a new connection", final.Stream().Content, final.Conn, final.Errcode, fin.Content)
	}
	waitIdle(t, b.conn)
	if n := len(srv.FinalFrames(reqID)); n != 1 {
		t.Fatalf("final frames = %d, want 1", n)
	}
}
