package longconn

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// TestEngineTurnOverLongConnection: the real Codex (scripted model), the
// engine on the real Redis, the long-connection channel and the fake WeCom
// server. A message arrives as aibot_msg_callback; its card streams back on
// the callback's req_id with Codex's commentary inside <think> and the
// answer after it, every frame acked in order and within 20,480 bytes. The
// same msgid delivered again starts no second turn (the script has one
// reply: a second model request would fail the harness).
func TestEngineTurnOverLongConnection(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Looking at the repository first."),
		scriptedmodel.Message("final_answer", "The answer is 42."),
	)))
	srv, _ := startEngine(t, h)
	wctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: "what is the answer?"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(wctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	content := final.Stream().Content
	think, answer, ok := strings.Cut(content, "</think>")
	if !ok || !strings.HasPrefix(think, "<think>") || !strings.Contains(think, "Looking at the repository first.") ||
		strings.Contains(think, "The answer is 42.") || !strings.Contains(answer, "The answer is 42.") ||
		strings.Contains(answer, "Looking at the repository first.") {
		t.Fatalf("final frame %q: want the commentary inside <think> and only the answer after it", content)
	}
	// The same msgid again: no second turn, no second final frame.
	if _, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: "what is the answer?"}); err != nil {
		t.Fatal(err)
	}
	second, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-2", UserID: "zhangsan", Text: "/status"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Wait(wctx, wecomtest.IsFinalStream(second)); err != nil {
		t.Fatal(err)
	}
	finals := 0
	for _, r := range srv.Requests(CmdRespond) {
		if r.Errcode != 0 || len(r.Stream().Content) > wecomtest.StreamMaxBytes {
			t.Fatalf("frame %+v: want acked and ≤ %d bytes", r, wecomtest.StreamMaxBytes)
		}
		if r.ReqID == reqID && r.Stream().Finish {
			finals++
		}
	}
	if finals != 1 {
		t.Fatalf("final frames on the first message = %d, want 1", finals)
	}
	assertOneInFlight(t, srv, reqID)
	if n := len(h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model requests = %d, want 1 (one turn)", n)
	}
}

func waitHolding(t *testing.T, c *Connection) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		if ready, _ := c.Status(); ready {
			c.mu.Lock()
			held := c.client != nil
			c.mu.Unlock()
			if held {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("the connection never became ready")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// startEngine runs the engine on the real Redis with the real Codex of h
// behind the long-connection channel, connected to a new fake server;
// tune changes the client's options.
func startEngine(t *testing.T, h *codextest.Harness, tune ...func(*Options)) (*wecomtest.LongConnServer, *Connection) {
	t.Helper()
	return startEngineWith(t, h, func(*bot.Config) {}, tune...)
}

// startEngineWith is startEngine with the engine's config changed by cfg.
func startEngineWith(t *testing.T, h *codextest.Harness, cfg func(*bot.Config), tune ...func(*Options)) (*wecomtest.LongConnServer, *Connection) {
	t.Helper()
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(t, "longconn-e2e")
	st := testenv.OpenStores(t, prefix)
	log := slog.New(slog.DiscardHandler)

	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log})
	t.Cleanup(func() { _ = agent.Close() })
	var (
		engine *bot.Engine
		ch     *Channel
	)
	o := Options{URL: srv.URL(), BotID: testBot, Secret: testSecret,
		OnCallback: func(ctx context.Context, f Frame) { ch.Callbacks(engine)(ctx, f) }}
	for _, f := range tune {
		f(&o)
	}
	conn, err := New(Config{
		Client: o, Replica: "A", Store: st, HolderTTL: 3 * time.Second, RenewEvery: time.Second, Log: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ch = NewChannel(conn, log)
	if ch.Media.Hosts, err = wecom.NewAllowedHosts("127.0.0.1"); err != nil { // the media server's
		t.Fatal(err)
	}
	ecfg := bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "A", WorkspaceRoot: t.TempDir(), TurnTimeout: time.Minute, UpdateInterval: 10 * time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"zhangsan"}}, Logger: log,
	}
	cfg(&ecfg)
	engine, err = bot.New(ecfg, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = engine.Run(ctx); done <- struct{}{} }()
	go func() { _ = conn.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })

	wctx := waitCtx(t)
	if _, err := srv.Wait(wctx, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.Errcode == 0 }); err != nil {
		t.Fatal(err)
	}
	waitHolding(t, conn)
	return srv, conn
}

// TestEngineStopOverLongConnection: /stop while Codex is mid-answer ends
// the turn; its card's final frame says it was cancelled.
func TestEngineStopOverLongConnection(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Working on it."),
		scriptedmodel.MessageDeltas("final_answer", "one", " two", " three"),
	).WithHold(1, gate)))
	srv, _ := startEngine(t, h)
	wctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: "count"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-wctx.Done():
		t.Fatal("Codex never reached the hold")
	}
	stopReq, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-2", UserID: "zhangsan", Text: "/stop"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(wctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if c := final.Stream().Content; !strings.Contains(c, "Cancelled") || strings.Contains(c, "three") {
		t.Fatalf("final frame of the stopped turn = %q, want it cancelled before the rest of the answer", c)
	}
	if _, err := srv.Wait(wctx, wecomtest.IsFinalStream(stopReq)); err != nil {
		t.Fatal(err)
	}
}
