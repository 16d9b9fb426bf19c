package main

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/bot/wecom"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// Long-connection mode across two `wecodex serve` processes on one Redis,
// both dialling the fake WeCom server; the one holding the connection is
// killed with SIGKILL mid-turn.

// The long-connection bot's credentials in these tests (not secrets).
const (
	lcBotID  = "aib-e2e-longconn"
	lcSecret = "e2e-longconn-secret"
)

// textServerLostRerun is the notice on the card of a message that runs once
// more after its replica died (agent.rerun_orphaned: once).
const textServerLostRerun = "⚠️ the server running this turn stopped before it finished. It runs once more."

// newLongConnE2E is newE2E on a private Redis, with every serve process in
// long-connection mode against a fake WeCom server of its own.
func newLongConnE2E(t *testing.T, script sm.Script) (*e2e, *wecomtest.LongConnServer) {
	t.Helper()
	e := newE2E(t, script)
	rs := testenv.NewRedisServer(t)
	rs.Start()
	e.redisURL = &redis.Options{Addr: rs.Addr()}
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: lcBotID, Secret: lcSecret})
	e.env = []string{
		"WECODEX_WECOM_AIBOT_MODE=longconn",
		"WECODEX_WECOM_AIBOT_BOT_ID=" + lcBotID,
		"WECODEX_WECOM_AIBOT_SECRET=" + lcSecret,
		"WECODEX_WECOM_AIBOT_WS_URL=" + srv.URL(),
	}
	return e, srv
}

// replicaOf is the replica id p runs as (the holder lease names it).
func replicaOf(t *testing.T, ctx context.Context, p *botProc) string {
	t.Helper()
	return replicaStarted(t, ctx, p, "wecom aibot long connection")
}

// replicaStarted is the replica id p runs as, from its channel's start
// line, msg.
func replicaStarted(t *testing.T, ctx context.Context, p *botProc, msg string) string {
	t.Helper()
	id, _ := p.logs.waitFor(t, ctx, msg, nil)["replica"].(string)
	if id == "" {
		t.Fatalf("no replica id logged; logs:\n%s", p.logs)
	}
	return id
}

// subscribedBy waits until p has subscribed and returns the fake server's id
// of that connection.
func subscribedBy(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, p *botProc) int {
	t.Helper()
	p.logs.waitFor(t, ctx, "wecom long connection subscribed", nil)
	conn := srv.Subscribed()
	if conn == 0 {
		t.Fatal("the process logged a subscribe the fake server does not know")
	}
	return conn
}

// kill9 kills p with SIGKILL, and then its Codex app-server, which a real
// machine losing the process would lose with it (here it would linger).
func kill9(t *testing.T, p *botProc) {
	t.Helper()
	groups := appServerGroups(p.cmd.Process.Pid)
	p.signal(t, syscall.SIGKILL)
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
	<-p.exited
}

// frameOn matches a stream frame on reqID whose content ends with suffix.
func frameOn(reqID, suffix string) func(wecomtest.Record) bool {
	return func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_respond_msg" && r.ReqID == reqID &&
			strings.HasSuffix(r.Stream().Content, suffix)
	}
}

// newSubscribe matches a successful subscribe on a connection other than old.
func newSubscribe(old int) func(wecomtest.Record) bool {
	return func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_subscribe" && r.Errcode == 0 && r.Conn != old
	}
}

// push sends a user's text message as aibot_msg_callback and returns its
// req_id, which carries the reply stream.
func push(t *testing.T, srv *wecomtest.LongConnServer, user, text string) string {
	t.Helper()
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: user, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return reqID
}

func waitRecord(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, from int, what string, match func(wecomtest.Record) bool) wecomtest.Record {
	t.Helper()
	r, err := srv.WaitFrom(ctx, from, match)
	if err != nil {
		t.Fatalf("%s: %v; records:\n%+v", what, err, srv.Records())
	}
	return r
}

func reached(t *testing.T, ctx context.Context, g *sm.Gate) {
	t.Helper()
	select {
	case <-g.Reached():
	case <-ctx.Done():
		t.Fatal("the model stream never reached the gate")
	}
}

// assertStreamEnded checks reqID's stream: every frame acked, within WeCom's
// cap and sent one at a time; exactly one final frame, final, and nothing on
// reqID after it; and nothing ever sent by aibot_send_msg (the answer fits
// one frame, so every byte of it went out once, in the stream).
func assertStreamEnded(t *testing.T, srv *wecomtest.LongConnServer, reqID string, final wecomtest.Record) {
	t.Helper()
	for _, r := range srv.Requests("") {
		switch {
		case r.Cmd == "aibot_send_msg":
			t.Errorf("aibot_send_msg %q: want every answer byte in the stream, once", r.Markdown())
		case r.ReqID != reqID:
		case r.Seq > final.Seq:
			t.Errorf("frame %d %q sent after the final frame %d", r.Seq, r.Stream().Content, final.Seq)
		case r.Errcode != 0 || len(r.Stream().Content) > wecomtest.StreamMaxBytes:
			t.Errorf("frame %d: errcode %d, %d bytes; want acked and ≤ %d bytes", r.Seq, r.Errcode, len(r.Stream().Content), wecomtest.StreamMaxBytes)
		case r.Stream().Finish && r.Seq != final.Seq:
			t.Errorf("a second final frame %d %q", r.Seq, r.Stream().Content)
		}
	}
	if over := srv.Overlapping(reqID); len(over) > 0 {
		t.Errorf("frame %d sent while another on its req_id awaited its ack", over[0].Seq)
	}
	if n, k := srv.MaxSubscribed(), srv.Kicks(); n != 1 || k != 0 {
		t.Errorf("max subscribed %d, kicks %d; want 1 and 0: never two of our connections at once", n, k)
	}
}

// ranOn reports how many turns of the stream final closes p started.
func ranOn(p *botProc, final wecomtest.Record) int {
	return len(p.logs.withMsg("turn started", map[string]any{"stream": final.Stream().ID}))
}

// killMidAnswer waits until Codex is held at gate and a frame of reqID
// ending in suffix went out on A's connection aConn, kills A with SIGKILL,
// and waits until B subscribes and re-pushes that frame on its connection:
// it returns the re-pushed frame (its Conn is B's connection).
func killMidAnswer(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, gate *sm.Gate, a *botProc, aConn int, reqID, suffix string) wecomtest.Record {
	t.Helper()
	reached(t, ctx, gate)
	mid := waitRecord(t, ctx, srv, 0, "the frame mid-answer", frameOn(reqID, suffix))
	if mid.Conn != aConn {
		t.Fatalf("mid-answer frame on conn %d, want A's %d", mid.Conn, aConn)
	}
	kill9(t, a)
	sub := waitRecord(t, ctx, srv, mid.Seq, "B's subscribe", newSubscribe(aConn))
	repushed := waitRecord(t, ctx, srv, sub.Seq, "the running stream re-pushed", frameOn(reqID, ""))
	if repushed.Conn != sub.Conn || repushed.Stream().Content != mid.Stream().Content {
		t.Fatalf("after the kill: %q on conn %d, want the mid-answer frame %q re-pushed on B's conn %d",
			repushed.Stream().Content, repushed.Conn, mid.Stream().Content, sub.Conn)
	}
	return repushed
}

// A holds the connection and runs the turn; kill -9 A with Codex held
// mid-answer. B subscribes once A's holder lease lapses (the fake server
// sees a new subscribe, never two at once), re-pushes the running stream's
// newest frame, and, once A's conversation lease and heartbeat lapse too,
// runs the message once more on the same stream, its card noting the loss,
// sending nothing after its final frame. The user's next message is
// answered by B.
func TestE2ELongConnHolderKilledMidTurn(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e, srv := newLongConnE2E(t, sm.ByPrompt(map[string][]sm.Response{
		"a long task": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Working on it."),
			sm.MessageDeltas(sm.PhaseFinalAnswer, "Half of", " the answer."),
		).WithHold(4, gate), // the commentary's 3 words and the answer's first delta
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Answered again by B."))},
		"after the kill": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Answered by B."))},
	}))
	e.h.AllowServerErrors() // the held model stream breaks when A's Codex dies
	ctx := within(t, 3*time.Minute)
	a := e.serve(t, "5m30s")
	aConn := subscribedBy(t, ctx, srv, a)
	b := e.serve(t, "5m30s")

	reqID := push(t, srv, "alice", "a long task")
	repushed := killMidAnswer(t, ctx, srv, gate, a, aConn, reqID, "Half of")
	bConn := subscribedBy(t, ctx, srv, b)
	final := waitRecord(t, ctx, srv, repushed.Seq, "the card's final frame", wecomtest.IsFinalStream(reqID))
	if got := final.Stream().Content; !strings.HasPrefix(got, "<think>\n"+textServerLostRerun+"\n") ||
		!strings.HasSuffix(got, "</think>\n\nAnswered again by B.") || final.Conn != bConn || bConn != repushed.Conn {
		t.Fatalf("final frame %q on conn %d, want the re-run's answer with %q on B's conn %d; B logged:\n%s", got, final.Conn, textServerLostRerun, repushed.Conn, b.logs)
	}
	b.logs.waitFor(t, ctx, "the replica running a message stopped before finishing it; it runs once more", nil)
	if ranOn(b, final) != 1 {
		t.Errorf("B did not run the lost message once more; logs:\n%s", b.logs)
	}

	next := push(t, srv, "alice", "after the kill")
	nextFinal := waitRecord(t, ctx, srv, final.Seq, "the next message's answer", wecomtest.IsFinalStream(next))
	if got := nextFinal.Stream().Content; !onOtherReplica(got, "Answered by B.") || nextFinal.Conn != bConn {
		t.Fatalf("next message answered %q on conn %d, want B's answer on B's conn %d", got, nextFinal.Conn, bConn)
	}
	if ranOn(b, nextFinal) != 1 {
		t.Errorf("B did not run the next message's turn; logs:\n%s", b.logs)
	}
	assertStreamEnded(t, srv, reqID, final)
	assertStreamEnded(t, srv, next, nextFinal)
	if got := userTexts(e.h.Server.ModelRequests()); !slices.Equal(got, []string{"a long task", "a long task", "after the kill"}) {
		t.Errorf("model requests %q, want the lost message twice, then the next once", got)
	}
}

// A holds the connection; the turn runs on B (B owns the conversation, as
// after an earlier turn there), its frames relayed through Redis to A's
// socket. kill -9 A with Codex held mid-answer on B: B takes the connection,
// re-pushes the newest frame, and the turn, released, finishes through B's
// own connection: the whole answer once, every frame in order.
func TestE2ELongConnTurnOnStandbyWhenHolderKilled(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	e, srv := newLongConnE2E(t, sm.ByPrompt(map[string][]sm.Response{
		"relay me": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Working on it."),
			sm.MessageDeltas(sm.PhaseFinalAnswer, "Relayed", " through", " Redis."),
		).WithHold(4, gate)},
		"bob again": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Second answer."))},
	}))
	ctx := within(t, 3*time.Minute)
	a := e.serve(t, "5m30s")
	aConn := subscribedBy(t, ctx, srv, a)
	b := e.serve(t, "5m30s")
	// B owns bob's conversation (its Codex thread lives with B), so only B
	// takes bob's messages while B lives, although A receives them.
	rdb := redis.NewClient(e.redisURL)
	defer rdb.Close()
	owner := store.NewKeys(e.prefix).Conv(wecom.SingleChat("bob").Key()).Owner()
	if err := rdb.Set(ctx, owner, replicaOf(t, ctx, b), store.ConversationTTL).Err(); err != nil {
		t.Fatal(err)
	}

	reqID := push(t, srv, "bob", "relay me")
	repushed := killMidAnswer(t, ctx, srv, gate, a, aConn, reqID, "Relayed")
	gate.Release()
	final := waitRecord(t, ctx, srv, repushed.Seq, "the card's final frame", wecomtest.IsFinalStream(reqID))
	const want = "<think>\nWorking on it.\n</think>\n\nRelayed through Redis."
	if got := final.Stream().Content; got != want || final.Conn != repushed.Conn {
		t.Fatalf("final frame %q on conn %d, want %q on B's conn %d", got, final.Conn, want, repushed.Conn)
	}
	for _, r := range srv.Requests("aibot_respond_msg") {
		if _, ans, _ := strings.Cut(r.Stream().Content, "</think>\n\n"); r.ReqID == reqID && !strings.HasPrefix("Relayed through Redis.", ans) {
			t.Errorf("frame %d shows the answer %q, not a prefix of the final one: out of order or repeated", r.Seq, ans)
		}
	}
	if ranOn(a, final) != 0 || ranOn(b, final) != 1 {
		t.Errorf("the turn started on A %d times, on B %d; want only on B", ranOn(a, final), ranOn(b, final))
	}

	next := push(t, srv, "bob", "bob again")
	nextFinal := waitRecord(t, ctx, srv, final.Seq, "the next message's answer", wecomtest.IsFinalStream(next))
	if got := nextFinal.Stream().Content; got != "Second answer." || nextFinal.Conn != repushed.Conn {
		t.Fatalf("next message answered %q on conn %d, want %q on B's conn %d", got, nextFinal.Conn, "Second answer.", repushed.Conn)
	}
	assertStreamEnded(t, srv, reqID, final)
	assertStreamEnded(t, srv, next, nextFinal)
	assertEachPromptOnce(t, e, "relay me", "bob again")
}
