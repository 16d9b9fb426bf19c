package longconn

import (
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestCardToSocket: a real card, published through a cards.Publisher and a
// StreamRenderer into the Connection: the progress is in <think> first and
// the answer after it, every frame is ≤ the stream cap and acked in order,
// and the part of a long answer the last frame cannot show follows by
// aibot_send_msg, so frame + markdown carry the answer exactly once.
func TestCardToSocket(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	r := startReplica(t, srv, testenv.Prefix(t, "longconn-card"), "A")
	holderOf(t, srv, r)
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	card := cards.New(cards.WithProgressStyle(cards.ProgressThink), cards.WithStreamLimit(1024))
	rend := &StreamRenderer{ReqID: reqID, StreamID: "st-1", ChatID: "zhangsan"}
	pub := cards.NewPublisher(card, rend.Render, func(s Snapshot, final bool) {
		s.Finish = s.Finish || final
		if _, err := r.conn.Present(ctx, s); err != nil {
			t.Error(err)
		}
	})
	pub.Apply(acp.UpdateAgentThoughtText("Reading the code."))
	answer := strings.Repeat("A long answer line.\n", 80)
	pub.Apply(acp.UpdateAgentMessageText(answer))
	pub.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))
	pub.Close()

	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	frames := srv.Requests(CmdRespond)
	for _, f := range frames {
		c := f.Stream().Content
		if f.Errcode != 0 || len(c) > 1024 || !strings.HasPrefix(c, "<think>\n") || !strings.Contains(c, "Reading the code.") {
			t.Fatalf("frame %q (errcode %d): want acked, ≤ 1024 bytes, progress in <think> first", c, f.Errcode)
		}
	}
	assertOneInFlight(t, srv, reqID)
	if _, err := srv.WaitCount(ctx, 1, wecomtest.IsRequest(CmdSend)); err != nil {
		t.Fatal(err)
	}
	waitStreamEnded(t, r, reqID) // the pusher ends a stream after its last send
	var rest strings.Builder
	for i, s := range srv.Requests(CmdSend) {
		if s.Errcode != 0 {
			t.Fatalf("aibot_send_msg refused: %+v", s)
		}
		md := s.Markdown()
		if i == 0 {
			// Marked as the card's continuation, then only the answer's rest.
			lead := cards.ContinuationLead + cards.FrameGap
			if !strings.HasPrefix(md, lead) {
				t.Fatalf("first aibot_send_msg %q does not open with %q", md, lead)
			}
			md = md[len(lead):]
		}
		rest.WriteString(md)
	}
	// The frame shows the answer's start verbatim, the markdown its end:
	// together exactly the answer.
	cut := len(answer) - rest.Len()
	if rest.Len() == 0 || cut <= 0 || answer[cut:] != rest.String() || !strings.Contains(final.Stream().Content, answer[:cut]) {
		t.Fatalf("frame %q\n+ markdown %q\nis not the answer once", final.Stream().Content, rest.String())
	}
}

// waitStreamEnded waits until the holder has ended reqID's stream in Redis.
func waitStreamEnded(t *testing.T, r *replica, reqID string) {
	t.Helper()
	ctx := waitCtx(t)
	for {
		running, err := r.store.RunningStreams(ctx, testBot)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := running[reqID]; !ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("stream %s never ended", reqID)
		case <-time.After(5 * time.Millisecond):
		}
	}
}
