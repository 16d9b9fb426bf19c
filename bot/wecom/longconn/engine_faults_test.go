package longconn

import (
	"context"
	"github.com/wecodex/wecodex/cards"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// The long connection under faults, through the engine and the real Codex:
// a dead heartbeat, a stream WeCom expires, an answer longer than a frame.

// heldTurn pushes text as zhangsan's message and waits until Codex is held
// at gate and the frame ending in suffix was acked; it returns the req_id
// and that frame.
func heldTurn(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, gate *scriptedmodel.Gate, text, suffix string) (string, wecomtest.Record) {
	t.Helper()
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("Codex never reached the hold")
	}
	mid, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.ReqID == reqID && strings.HasSuffix(r.Stream().Content, suffix)
	})
	if err != nil {
		t.Fatalf("no frame ending in %q: %v", suffix, err)
	}
	if _, err := srv.WaitFrom(ctx, mid.Seq, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.ReqID == reqID }); err != nil {
		t.Fatal(err)
	}
	return reqID, mid
}

// sentMarkdown is every aibot_send_msg markdown, in order, each acked.
func sentMarkdown(t *testing.T, srv *wecomtest.LongConnServer) []string {
	t.Helper()
	var out []string
	for _, r := range srv.Requests(CmdSend) {
		if r.Errcode != 0 || r.MsgType() != "markdown" || len(r.Markdown()) > DefaultMarkdownMax {
			t.Fatalf("aibot_send_msg %+v: want acked markdown ≤ %d bytes", r, DefaultMarkdownMax)
		}
		out = append(out, r.Markdown())
	}
	if len(out) > 0 {
		// The first is marked as the card's continuation; the rest is the
		// answer's own text.
		lead := cards.ContinuationLead + cards.FrameGap
		if !strings.HasPrefix(out[0], lead) {
			t.Fatalf("first continuation %q does not open with %q", out[0], lead)
		}
		out[0] = strings.TrimPrefix(out[0], lead)
	}
	return out
}

// waitSent waits until aibot_send_msg requests carried n bytes of markdown
// and the last of them was acked.
func waitSent(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, n int) {
	t.Helper()
	sent := 0
	last, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		if r.Kind == wecomtest.KindRequest && r.Cmd == CmdSend {
			sent += len(r.Markdown())
		}
		return sent >= n
	})
	if err != nil {
		t.Fatalf("aibot_send_msg carried %d bytes, want %d: %v", sent, n, err)
	}
	if _, err := srv.WaitFrom(ctx, last.Seq, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindAck && r.ReqID == last.ReqID }); err != nil {
		t.Fatal(err)
	}
}

// TestEngineHeartbeatLossCardFinishes: WeCom stops acking pings mid-turn;
// the client declares the connection dead, subscribes again, and the
// running card finishes on the new connection with the whole answer, its
// final frame sent once.
func TestEngineHeartbeatLossCardFinishes(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Working on it."),
		scriptedmodel.MessageDeltas("final_answer", "Survived", " the", " reconnect."),
	).WithHold(4, gate)))
	srv, _ := startEngine(t, h, func(o *Options) { o.Heartbeat, o.BackoffMin = 100*time.Millisecond, 5*time.Millisecond })
	ctx := waitCtx(t)
	reqID, mid := heldTurn(t, ctx, srv, gate, "survive", "Survived")

	srv.SetAckPolicy(CmdPing, wecomtest.AckDrop)
	closed, err := srv.WaitFrom(ctx, mid.Seq, func(r wecomtest.Record) bool { return r.Kind == wecomtest.KindClose && r.Conn == mid.Conn })
	if err != nil {
		t.Fatal(err)
	}
	srv.SetAckPolicy(CmdPing, wecomtest.AckNow)
	pings := 0
	for _, r := range srv.Records()[mid.Seq:closed.Seq] {
		if r.Conn == mid.Conn && r.Kind == wecomtest.KindRequest && r.Cmd == CmdPing {
			pings++
		}
	}
	if pings < 2 {
		t.Fatalf("connection closed after %d unanswered pings, want at least 2 (heartbeat loss, not another cause)", pings)
	}
	gate.Release()
	final, err := srv.WaitFrom(ctx, closed.Seq, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	const want = "<think>\nWorking on it.\n</think>\n\nSurvived the reconnect."
	if c := final.Stream().Content; c != want || final.Conn == mid.Conn || final.Errcode != 0 {
		t.Fatalf("final frame %q on conn %d (errcode %d), want %q acked on a new connection (not %d)", c, final.Conn, final.Errcode, want, mid.Conn)
	}
	if finals, sends := len(srv.FinalFrames(reqID)), len(srv.Requests(CmdSend)); finals != 1 || sends != 0 {
		t.Fatalf("final frames %d, aibot_send_msg %d; want 1 and 0", finals, sends)
	}
	assertOneInFlight(t, srv, reqID)
}

// TestEngineStreamExpiredMidAnswer: WeCom expires the stream (846608) while
// Codex is mid-answer; what the stream never showed follows by
// aibot_send_msg markdown, so the user reads every word once.
func TestEngineStreamExpiredMidAnswer(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	const answer = "Before the expiry; after it by markdown."
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Working on it."),
		scriptedmodel.MessageDeltas("final_answer", "Before", " the", " expiry;", " after", " it", " by", " markdown."),
	).WithHold(4, gate)))
	srv, _ := startEngine(t, h)
	ctx := waitCtx(t)
	reqID, _ := heldTurn(t, ctx, srv, gate, "expire", "Before")
	srv.ExpireStream(reqID)
	gate.Release()
	waitSent(t, ctx, srv, len(" the expiry; after it by markdown."))

	shown := ""
	for _, r := range srv.Requests(CmdRespond) {
		if r.ReqID != reqID {
			continue
		}
		switch r.Errcode {
		case 0:
			_, shown, _ = strings.Cut(r.Stream().Content, "</think>\n\n")
		case wecomtest.CodeStreamExpired:
		default:
			t.Fatalf("frame %d answered %d, want 0 or 846608", r.Seq, r.Errcode)
		}
	}
	if got := shown + strings.Join(sentMarkdown(t, srv), ""); got != answer {
		t.Fatalf("shown %q + sent = %q, want the answer once: %q", shown, got, answer)
	}
	assertOneInFlight(t, srv, reqID)
}

// TestEngineLongAnswerContinuesBySendMsg: an answer longer than one frame
// fills frames of at most 20,480 bytes; the final frame says it continues,
// and the rest follows by aibot_send_msg, every byte once.
func TestEngineLongAnswerContinuesBySendMsg(t *testing.T) {
	line := "A line of a long answer, written to overflow one stream frame.\n"
	deltas := make([]string, 500) // 32 KB
	for i := range deltas {
		deltas[i] = line
	}
	answer := strings.Join(deltas, "")
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Writing it out."),
		scriptedmodel.MessageDeltas("final_answer", deltas...),
	)))
	srv, _ := startEngine(t, h)
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "msg-1", UserID: "zhangsan", Text: "long"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests(CmdRespond) {
		if r.Errcode != 0 || len(r.Stream().Content) > wecomtest.StreamMaxBytes {
			t.Fatalf("frame %d: errcode %d, %d bytes; want acked, ≤ %d", r.Seq, r.Errcode, len(r.Stream().Content), wecomtest.StreamMaxBytes)
		}
	}
	const marker = "\n\n_(continued in the next message)_"
	think, shown, _ := strings.Cut(final.Stream().Content, "</think>\n\n")
	if think != "<think>\nWriting it out.\n" || !strings.HasSuffix(shown, marker) {
		t.Fatalf("final frame %q…%q: want the commentary, then the answer's start and the continuation marker",
			final.Stream().Content[:min(80, len(final.Stream().Content))], shown[max(0, len(shown)-80):])
	}
	shown = strings.TrimSuffix(shown, marker)
	waitSent(t, ctx, srv, len(answer)-len(shown))
	sent := sentMarkdown(t, srv)
	if got := shown + strings.Join(sent, ""); got != answer || len(sent) < 2 {
		t.Fatalf("shown %d bytes + %d pieces sent = %d bytes, want the %d-byte answer once, in several pieces", len(shown), len(sent), len(got), len(answer))
	}
}
