package longconn

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// textRefused is bot's refusal, as the user reads it.
const textRefused = "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."

// node is one replica: its long connection and its engine on a shared
// Redis prefix.
type node struct {
	conn   *Connection
	engine *bot.Engine
	root   string // agent.workspace_root
}

// nodeOptions say how a node runs: bin is its Codex (the harness's, or one
// that cannot start, to prove a node never ran a turn); run starts the
// engine's scheduler (without it the node only takes messages in); approve
// runs Codex in its workspace-write sandbox asking (agent.approval: ask);
// users are allowed in any chat (default zhangsan).
type nodeOptions struct {
	prefix, replica, bin string
	run, approve         bool
	users                []string
}

func startNode(t *testing.T, h *codextest.Harness, srv *wecomtest.LongConnServer, o nodeOptions) *node {
	t.Helper()
	st := testenv.OpenStores(t, o.prefix)
	log := slog.New(slog.DiscardHandler)
	n := &node{root: t.TempDir()}
	co := codex.Options{Bin: o.bin, Env: h.CodexEnv(), Phases: st, Logger: log}
	if o.approve {
		co.Sandbox, co.ApprovalPolicy = "workspace-write", "on-request"
	}
	if o.users == nil {
		o.users = []string{"zhangsan"}
	}
	agent := codex.New(co)
	t.Cleanup(func() { _ = agent.Close() })
	var ch *Channel
	conn, err := New(Config{
		Client: Options{URL: srv.URL(), BotID: testBot, Secret: testSecret,
			OnCallback: func(ctx context.Context, f Frame) { ch.Callbacks(n.engine)(ctx, f) }},
		Replica: o.replica, Store: st, HolderTTL: 3 * time.Second, RenewEvery: time.Second, Log: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ch = NewChannel(conn, log)
	n.conn = conn
	n.engine, err = bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: o.replica, WorkspaceRoot: n.root, TurnTimeout: time.Minute,
		UpdateInterval: 10 * time.Millisecond, PollInterval: 20 * time.Millisecond,
		// The requester decides their own requests (access.approvers: [requester]).
		Access: bot.Access{AllowUsers: o.users, Approvers: []string{bot.ApproverRequester}}, Logger: log,
	}, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	runs := 1
	go func() { _ = conn.Run(ctx); done <- struct{}{} }()
	if o.run {
		runs++
		go func() { _ = n.engine.Run(ctx); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		for range runs {
			<-done
		}
	})
	return n
}

// TestEngineRefusesUserNotAllowed: a sender not on the access list gets the
// refusal as the stream's only, final frame, and Codex is never asked (the
// script has no reply: a model request would fail the harness).
func TestEngineRefusesUserNotAllowed(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence())
	srv, _ := startEngine(t, h)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "lisi", Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(waitCtx(t), wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if c := final.Stream().Content; c != textRefused {
		t.Fatalf("final frame = %q, want %q", c, textRefused)
	}
	var frames []string
	for _, r := range srv.Requests(CmdRespond) {
		if r.ReqID == reqID {
			frames = append(frames, r.Stream().Content)
		}
	}
	if len(frames) != 1 {
		t.Fatalf("frames on the refused message = %q, want only the refusal", frames)
	}
	if n := len(h.Server.ModelRequests()); n != 0 {
		t.Fatalf("model requests = %d, want 0", n)
	}
}

// TestEngineQueuedSecondMessage: a message sent while a turn runs shows its
// queue position on its own stream, then, once the first turn ends, its own
// answer; the first answer never reaches the second stream.
func TestEngineQueuedSecondMessage(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.MessageDeltas("final_answer", "First", " answer.")).WithHold(1, gate),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "Second answer.")),
	))
	srv, _ := startEngine(t, h)
	ctx := waitCtx(t)
	first, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: "one"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("Codex never reached the hold")
	}
	second, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-2", UserID: "zhangsan", Text: "two"})
	if err != nil {
		t.Fatal(err)
	}
	const queued = "⏳ Queued (position 1) — waiting for the running turn to finish."
	pos, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.ReqID == second && r.Stream().Content == queued
	})
	if err != nil {
		t.Fatal(err)
	}
	gate.Release()
	fin1, err := srv.Wait(ctx, wecomtest.IsFinalStream(first))
	if err != nil {
		t.Fatal(err)
	}
	fin2, err := srv.Wait(ctx, wecomtest.IsFinalStream(second))
	if err != nil {
		t.Fatal(err)
	}
	if c := fin1.Stream().Content; !strings.HasSuffix(c, "First answer.") || strings.Contains(c, "Second") {
		t.Fatalf("first final frame = %q, want the first answer only", c)
	}
	if c := fin2.Stream().Content; !strings.HasSuffix(c, "Second answer.") || strings.Contains(c, "First") || strings.Contains(c, "Queued") {
		t.Fatalf("second final frame = %q, want the second answer only", c)
	}
	if pos.Seq > fin2.Seq {
		t.Fatalf("queue position (record %d) after the final frame (record %d)", pos.Seq, fin2.Seq)
	}
	assertOneInFlight(t, srv, first)
	assertOneInFlight(t, srv, second)
	if n := len(h.Server.ModelRequests()); n != 2 {
		t.Fatalf("model requests = %d, want 2", n)
	}
}

// TestEngineTurnOnOtherReplica: A holds the connection and takes the
// message in, but runs no turns (and its Codex could not start); B stands
// by and runs the turn. Every frame B renders reaches WeCom through Redis
// and A's connection, one at a time and in order, and the card ends with
// the answer.
func TestEngineTurnOnOtherReplica(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Reading the code."),
		scriptedmodel.MessageDeltas("final_answer", "Relayed", " through", " Redis."),
	).WithHold(4, gate))) // 3 words of commentary, then the first of the answer
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(t, "longconn-e2e-relay")
	a := startNode(t, h, srv, nodeOptions{prefix: prefix, replica: "A", bin: "/nonexistent/codex"})
	waitHolding(t, a.conn)
	b := startNode(t, h, srv, nodeOptions{prefix: prefix, replica: "B", bin: h.Bin, run: true})
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: "relay"})
	if err != nil {
		t.Fatal(err)
	}
	// Force a frame mid-answer before the rest is written.
	mid, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.ReqID == reqID && strings.HasSuffix(r.Stream().Content, "</think>\n\nRelayed")
	})
	if err != nil {
		t.Fatalf("no frame ending in the first delta: %v; records: %+v", err, srv.Records())
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("Codex never reached the hold")
	}
	gate.Release()
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	think, answer, ok := strings.Cut(final.Stream().Content, "</think>")
	if !ok || !strings.Contains(think, "Reading the code.") || strings.TrimSpace(answer) != "Relayed through Redis." {
		t.Fatalf("final frame = %q, want the commentary in <think> and the answer after it", final.Stream().Content)
	}
	assertRelayed(t, srv, reqID, mid.Seq, final.Seq)
	b.conn.mu.Lock()
	bHolds := b.conn.client != nil
	b.conn.mu.Unlock()
	if bHolds {
		t.Fatal("B holds the connection, want A")
	}
	if n := len(srv.Requests(CmdSubscribe)); n != 1 {
		t.Fatalf("subscribes = %d, want 1 (A's only)", n)
	}
	if n := len(h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model requests = %d, want 1", n)
	}
}

// assertRelayed checks reqID's frames: all on the one subscribed connection,
// acked, one in flight at a time, the mid-answer frame before the final,
// and every answer a prefix of the final one (pushed in order).
func assertRelayed(t *testing.T, srv *wecomtest.LongConnServer, reqID string, midSeq, finalSeq int) {
	t.Helper()
	conn := srv.Subscribed()
	final := ""
	for _, r := range srv.Requests(CmdRespond) {
		if r.Seq == finalSeq {
			_, final, _ = strings.Cut(r.Stream().Content, "</think>")
		}
	}
	for _, r := range srv.Requests(CmdRespond) {
		if r.ReqID != reqID {
			continue
		}
		if r.Conn != conn || r.Errcode != 0 {
			t.Fatalf("frame %d on conn %d (errcode %d), want acked on A's conn %d", r.Seq, r.Conn, r.Errcode, conn)
		}
		if _, ans, ok := strings.Cut(r.Stream().Content, "</think>"); ok && !strings.HasPrefix(final, ans) {
			t.Fatalf("frame %d answer %q is not a prefix of the final %q: out of order", r.Seq, ans, final)
		}
	}
	if midSeq >= finalSeq {
		t.Fatalf("mid-answer frame %d not before the final %d", midSeq, finalSeq)
	}
	assertOneInFlight(t, srv, reqID)
}
