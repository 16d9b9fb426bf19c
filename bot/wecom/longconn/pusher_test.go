package longconn

import (
	"context"
	"fmt"
	"github.com/wecodex/wecodex/cards"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// pushRig is a subscribed client, a pusher on it and one message callback
// whose req_id carries the stream.
type pushRig struct {
	srv    *wecomtest.LongConnServer
	p      *Pusher
	reqID  string
	ended  chan Snapshot
	client *Client
}

func newPushRig(t *testing.T, o Options) *pushRig {
	t.Helper()
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	c, _ := runClient(t, srv, o)
	waitSubscribed(t, c)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", Text: "q"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &pushRig{srv: srv, reqID: reqID, ended: make(chan Snapshot, 8), client: c}
	r.p = NewPusher(ctx, c, slog.New(slog.DiscardHandler), PushHooks{Ended: func(s Snapshot) { r.ended <- s }})
	t.Cleanup(func() { cancel(); r.p.Wait() })
	return r
}

func (r *pushRig) snap(seq int64, body string, end int, finish bool) Snapshot {
	return Snapshot{ReqID: r.reqID, StreamID: "st-1", ChatID: "zhangsan", Seq: seq,
		Content: "<think>p</think>" + body[:end], Finish: finish, Body: body, BodyEnd: end}
}

func streamContents(rs []wecomtest.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Stream().Content)
	}
	return out
}

// TestPusherNewestReplacesWaiting: while a frame awaits its ack, newer
// snapshots replace each other; the final one is sent next, alone.
func TestPusherNewestReplacesWaiting(t *testing.T) {
	r := newPushRig(t, Options{})
	ctx := waitCtx(t)
	r.srv.SetAckPolicy(CmdRespond, wecomtest.AckHold)
	r.p.Offer(r.snap(1, "a", 1, false))
	if _, err := r.srv.Wait(ctx, wecomtest.IsRequest(CmdRespond)); err != nil {
		t.Fatal(err)
	}
	r.p.Offer(r.snap(2, "ab", 2, false))
	r.p.Offer(r.snap(3, "abc", 3, false))
	r.p.Offer(r.snap(4, "abcd", 4, true))
	r.p.Offer(r.snap(3, "abc", 3, false)) // a stale repeat, dropped
	if n := r.srv.Release(CmdRespond); n != 1 {
		t.Fatalf("released %d acks, want 1 (one frame in flight)", n)
	}
	if _, err := r.srv.Wait(ctx, wecomtest.IsFinalStream(r.reqID)); err != nil {
		t.Fatal(err)
	}
	r.srv.Release(CmdRespond)
	<-r.ended
	got := streamContents(r.srv.Requests(CmdRespond))
	want := []string{"<think>p</think>a", "<think>p</think>abcd"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("frames = %q, want %q", got, want)
	}
	if n := len(r.srv.Requests(CmdSend)); n != 0 {
		t.Fatalf("aibot_send_msg sent %d times, want 0", n)
	}
}

// TestPusherFinalAckTimeoutNotResent: a final frame without an ack is an
// unknown outcome: it is not sent again, and nothing goes by aibot_send_msg.
func TestPusherFinalAckTimeoutNotResent(t *testing.T) {
	r := newPushRig(t, Options{AckTimeout: 30 * time.Millisecond})
	r.srv.SetAckPolicy(CmdRespond, wecomtest.AckDrop)
	r.p.Offer(r.snap(1, "answer", 6, true))
	<-r.ended
	if n := len(r.srv.Requests(CmdRespond)); n != 1 {
		t.Fatalf("final frame sent %d times, want 1", n)
	}
	if n := len(r.srv.Requests(CmdSend)); n != 0 {
		t.Fatalf("aibot_send_msg sent %d times, want 0", n)
	}
}

// TestPusherExpiredStreamContinuesBySendMsg: after 846608 the part of the
// answer WeCom never showed goes by aibot_send_msg markdown, every byte
// once, in pieces within the markdown cap.
func TestPusherExpiredStreamContinuesBySendMsg(t *testing.T) {
	r := newPushRig(t, Options{})
	r.p.markdownMax = 160 // cards.SplitMarkdown's least is 144
	ctx := waitCtx(t)
	body := "Hello. " + strings.Repeat("Then a much longer answer\nwith lines, ünïcödé and more words.\n", 8)
	r.p.Offer(r.snap(1, body, 6, false))
	if _, err := r.srv.Wait(ctx, func(x wecomtest.Record) bool { return x.Kind == wecomtest.KindAck && x.ReqID == r.reqID }); err != nil {
		t.Fatal(err)
	}
	r.srv.ExpireStream(r.reqID)
	r.p.Offer(r.snap(2, body, 20, false))
	if _, err := r.srv.Wait(ctx, func(x wecomtest.Record) bool {
		return x.Kind == wecomtest.KindRequest && x.ReqID == r.reqID && x.Errcode == wecomtest.CodeStreamExpired
	}); err != nil {
		t.Fatal(err)
	}
	r.p.Offer(r.snap(3, body, len(body), true))
	<-r.ended
	if n := len(r.srv.Requests(CmdRespond)); n != 2 {
		t.Fatalf("stream frames = %d, want 2 (the expired stream gets no final frame)", n)
	}
	var sent []string
	for _, m := range r.srv.Requests(CmdSend) {
		if m.Errcode != 0 || m.MsgType() != "markdown" || len(m.Markdown()) > 160 {
			t.Fatalf("aibot_send_msg %+v: want acked markdown ≤ 160 bytes", m)
		}
		sent = append(sent, m.Markdown())
	}
	if got := body[:6] + strings.TrimPrefix(strings.Join(sent, ""), cards.ContinuationLead+cards.FrameGap); got != body {
		t.Fatalf("shown + sent = %q, want the answer once: %q", got, body)
	}
	if len(sent) < 2 {
		t.Fatalf("sent %d pieces, want several", len(sent))
	}
}

// TestPusherExpiredMidWordContinuesAtTheWord: a stream WeCom expired after
// a frame that ended inside a word continues with that whole word, then
// the rest once, and no <think> markup (a continuation is no stream).
func TestPusherExpiredMidWordContinuesAtTheWord(t *testing.T) {
	r := newPushRig(t, Options{})
	ctx := waitCtx(t)
	body := "Final answer: ECHO[window-msg-0123456789] done."
	r.p.Offer(r.snap(1, body, len("Final answer: ECHO[w"), false))
	if _, err := r.srv.Wait(ctx, func(x wecomtest.Record) bool { return x.Kind == wecomtest.KindAck && x.ReqID == r.reqID }); err != nil {
		t.Fatal(err)
	}
	r.srv.ExpireStream(r.reqID)
	r.p.Offer(r.snap(2, body, len(body), true))
	<-r.ended
	sends := r.srv.Requests(CmdSend)
	want := cards.ContinuationLead + cards.FrameGap + "ECHO[window-msg-0123456789] done."
	if len(sends) != 1 || sends[0].Markdown() != want || sends[0].Errcode != 0 {
		t.Fatalf("aibot_send_msg = %+v, want one acked %q", sends, want)
	}
	if strings.Contains(sends[0].Markdown(), "<think>") {
		t.Errorf("the continuation carries <think> markup: %q", sends[0].Markdown())
	}
}

// TestPusherLongAnswerContinuesBySendMsg: what the final frame cannot show
// follows by aibot_send_msg.
func TestPusherLongAnswerContinuesBySendMsg(t *testing.T) {
	r := newPushRig(t, Options{})
	body := "first part|second part"
	r.p.Offer(r.snap(1, body, 11, true))
	<-r.ended
	sends := r.srv.Requests(CmdSend)
	if len(sends) != 1 || sends[0].Markdown() != cards.ContinuationLead+cards.FrameGap+"second part" || sends[0].Errcode != 0 {
		t.Fatalf("aibot_send_msg = %+v, want one acked %q", sends, "second part")
	}
}

// TestPusherContinuationKeepsCodeBlocks: an answer continued by
// aibot_send_msg is cut into messages that each render on their own, so a
// code block cut between two messages is closed in the first and reopened,
// with its language, in the next; no message shows code as prose.
func TestPusherContinuationKeepsCodeBlocks(t *testing.T) {
	r := newPushRig(t, Options{})
	r.p.markdownMax = 200
	var code strings.Builder
	for i := range 20 {
		fmt.Fprintf(&code, "fmt.Println(%d)\n", i)
	}
	body := "Shown.\n\nThe fix:\n\n```go\n" + code.String() + "```\n\nThat is all."
	r.p.Offer(r.snap(1, body, len("Shown.\n\n"), true))
	<-r.ended
	var sent []string
	for _, m := range r.srv.Requests(CmdSend) {
		if m.Errcode != 0 || m.MsgType() != "markdown" || len(m.Markdown()) > 200 {
			t.Fatalf("aibot_send_msg %+v: want acked markdown ≤ 200 bytes", m)
		}
		sent = append(sent, m.Markdown())
	}
	if len(sent) < 2 {
		t.Fatalf("sent %d messages, want the code block cut across several: %q", len(sent), sent)
	}
	var lines []string
	for i, md := range sent {
		fences := 0
		for _, l := range strings.Split(md, "\n") {
			if strings.HasPrefix(l, "```") {
				fences++
			} else if strings.HasPrefix(l, "fmt.") {
				lines = append(lines, l)
			}
		}
		if fences%2 != 0 {
			t.Errorf("message %d leaves a code block open:\n%s", i+1, md)
		}
		if i > 0 && strings.HasPrefix(md, "fmt.") {
			t.Errorf("message %d shows code outside its block:\n%s", i+1, md)
		}
	}
	if got, want := strings.Join(lines, "\n")+"\n", code.String(); got != want {
		t.Errorf("code lines sent = %q, want each once, in order: %q", got, want)
	}
}
