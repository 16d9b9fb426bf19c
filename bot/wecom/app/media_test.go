package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Media are fetched with media/get: a picture
// gets its bytes and a name from its type, a file keeps its own name (one
// path element), a voice without transcript is the AMR file, and a MediaId
// WeCom does not know becomes the attachment's problem.
func TestMessageMediaFetched(t *testing.T) {
	r := newRig(t)
	c, _ := r.channel(t, "A")
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 64)...)
	r.api.AddMedia("IMG1", wecomtest.AppMedia{Name: "x.png", ContentType: "image/png", Data: png})
	r.api.AddMedia("F1", wecomtest.AppMedia{Name: "r.txt", ContentType: "text/plain", Data: []byte("report")})
	ctx := waitCtx(t)
	for _, tc := range []struct {
		cb   Callback
		want bot.Attachment
	}{
		{Callback{MsgType: "image", MsgID: "1", User: testUser, MediaID: "IMG1"},
			bot.Attachment{Kind: bot.AttachImage, Name: "image-1.png", MIME: "image/png", Data: png}},
		{Callback{MsgType: "file", MsgID: "2", User: testUser, MediaID: "F1", FileName: "../../etc/r.txt"},
			bot.Attachment{Kind: bot.AttachFile, Name: "r.txt", MIME: "text/plain; charset=utf-8", Data: []byte("report")}},
		{Callback{MsgType: "voice", MsgID: "3", User: testUser, MediaID: "GONE"},
			bot.Attachment{Kind: bot.AttachFile, Name: "voice-3.amr", Problem: "the file could not be fetched from WeCom"}},
	} {
		m, ref, ok := messageOf(tc.cb)
		if m.Conversation != wecom.AppChat(testUser) || m.ID != tc.cb.MsgID || !ok {
			t.Fatalf("%s: message %+v", tc.cb.MsgType, m)
		}
		a := c.fetchAttachment(ctx, ref)
		if a.Kind != tc.want.Kind || a.Name != tc.want.Name || a.MIME != tc.want.MIME || !bytes.Equal(a.Data, tc.want.Data) || a.Problem != tc.want.Problem {
			t.Fatalf("%s: attachment %+v, want %+v", tc.cb.MsgType, a, tc.want)
		}
	}
	if m, _, ok := messageOf(Callback{MsgType: "voice", MsgID: "4", User: testUser, MediaID: "V", Recognition: "run it"}); m.Text != "run it" || ok {
		t.Fatalf("voice with transcript: %+v", m)
	}
	assertNoTokenLogged(t, r)
}

// The app keeps to wecom.media.max_bytes: a larger file is not kept, and
// the attachment says why; a file within the cap arrives whole.
func TestMessageMediaCapped(t *testing.T) {
	r := newRig(t)
	c, _ := r.channel(t, "A")
	c.media.MaxBytes = 10
	r.api.AddMedia("BIG", wecomtest.AppMedia{Name: "big.txt", ContentType: "text/plain", Data: []byte("eleven byte")})
	r.api.AddMedia("FIT", wecomtest.AppMedia{Name: "fit.txt", ContentType: "text/plain", Data: []byte("ten bytes.")})
	ctx := waitCtx(t)
	fetch := func(cb Callback) bot.Attachment {
		_, ref, _ := messageOf(cb)
		return c.fetchAttachment(ctx, ref)
	}
	if a := fetch(Callback{MsgType: "file", MsgID: "5", User: testUser, MediaID: "BIG", FileName: "big.txt"}); a.Name != "big.txt" || a.Data != nil || a.Problem != "the file is larger than 10 bytes" {
		t.Fatalf("file over the cap: %+v", a)
	}
	if a := fetch(Callback{MsgType: "file", MsgID: "6", User: testUser, MediaID: "FIT", FileName: "fit.txt"}); a.Name != "fit.txt" || string(a.Data) != "ten bytes." || a.Problem != "" {
		t.Fatalf("file within the cap: %+v", a)
	}
	if c2, _ := r.channel(t, "B"); c2.media != (mediaLimits{Timeout: wecom.DefaultMediaTimeout, MaxBytes: wecom.DefaultMediaMaxBytes}) {
		t.Fatalf("default media limits = %+v, want wecom's defaults", c2.media)
	}
	assertNoTokenLogged(t, r)
}

// A finished reply goes out once: a second one on the same stream (a lost
// turn's failure racing the turn's own end) is not sent.
func TestFinishedReplyOnce(t *testing.T) {
	r := newRig(t)
	c, _ := r.channel(t, "A")
	rep := bot.Reply{Conversation: wecom.AppChat(testUser), User: testUser, To: bot.ReplyTo{Stream: "s1"}, State: bot.ReplyFinished, Text: "Done here."}
	for i, want := range []bool{true, false} {
		shown, err := c.Show(waitCtx(t), rep)
		if err != nil || shown != want {
			t.Fatalf("show %d: %v %v, want %v", i+1, shown, err, want)
		}
	}
	waiting := rep
	waiting.To.Stream, waiting.State, waiting.Text = "s2", bot.ReplyWaiting, "⏳ Thinking…"
	if shown, err := c.Show(waitCtx(t), waiting); err != nil || !shown {
		t.Fatalf("waiting reply: %v %v", shown, err)
	}
	if md := contents(r.api.Delivered(testUser, "markdown")); len(md) != 1 || md[0] != "Done here." {
		t.Fatalf("sent %q", md)
	}
}

// A picture sent to the app (no text, as WeCom's image message has none)
// runs a turn: fetched by media/get while the callback is taken, it reaches
// the real Codex byte for byte.
func TestImageMessageReachesCodex(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(scriptedmodel.Message("final_answer", "A red square."))))
	r := newRig(t)
	n := r.replica(t, h, false)
	pic := codextest.Picture(t, 9)
	r.api.AddMedia("IMG9", wecomtest.AppMedia{Name: "s.png", ContentType: "image/png", Data: pic})
	rep, err := n.cb.Send(waitCtx(t), wecomtest.AppImage(testUser, "https://wework.qpic.cn/x", "IMG9"))
	if err != nil || rep.Status != 200 {
		t.Fatalf("image callback: %d %v", rep.Status, err)
	}
	md, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" })
	if err != nil {
		t.Fatal(err)
	}
	if md.Content != "A red square." {
		t.Fatalf("answer %q", md.Content)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 || len(reqs[0].UserImages) != 1 || !bytes.Equal(reqs[0].UserImages[0].Data, pic) {
		t.Fatalf("the model got %d requests; want one with exactly the picture sent", len(reqs))
	}
}

// A file is fetched only where wecom.allowed_hosts allows: with the fake
// API's loopback address not listed, media/get is never asked, and the
// answer says the file could not be fetched. No turn runs for it.
func TestMediaNotFetchedFromAHostNotAllowed(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence())
	r := newRig(t)
	r.allowed = []string{"qyapi.weixin.qq.com"}
	n := r.replica(t, h, false)
	r.api.AddMedia("IMG1", wecomtest.AppMedia{Name: "x.png", ContentType: "image/png", Data: codextest.Picture(t, 1)})
	msg := wecomtest.AppImage(testUser, "https://wework.qpic.cn/x", "IMG1")
	msg.MsgID = 7001
	if rep, err := n.cb.Send(waitCtx(t), msg); err != nil || rep.Status != 200 {
		t.Fatalf("image callback: %d %v", rep.Status, err)
	}
	md, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" })
	if err != nil {
		t.Fatal(err)
	}
	if want := "📎 image-7001 was not attached: the file could not be fetched from WeCom"; md.Content != want {
		t.Fatalf("answer %q, want %q", md.Content, want)
	}
	for _, rec := range r.api.Records() {
		if rec.API == "media/get" {
			t.Fatalf("media/get was asked: %+v", rec)
		}
	}
	if reqs := h.Server.ModelRequests(); len(reqs) != 0 {
		t.Fatalf("the model got %d requests; want none", len(reqs))
	}
}

// A stranger's file is not fetched: the message goes to intake as it is,
// which refuses it. A redelivery of an allowed user's message fetches
// nothing again.
func TestMediaFetchedOnceAndOnlyForAllowedSenders(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(scriptedmodel.Message("final_answer", "Seen."))))
	r := newRig(t)
	n := r.replica(t, h, false)
	r.api.AddMedia("IMG1", wecomtest.AppMedia{Name: "x.png", ContentType: "image/png", Data: codextest.Picture(t, 2)})
	stranger := wecomtest.AppImage("mallory", "https://wework.qpic.cn/x", "IMG1")
	if rep, err := n.cb.Send(waitCtx(t), stranger); err != nil || rep.Status != 200 {
		t.Fatalf("stranger's image: %d %v", rep.Status, err)
	}
	refusal, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" && rec.ToUser == "mallory" })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refusal.Content, "not allowed") {
		t.Fatalf("stranger's answer %q", refusal.Content)
	}
	mine := wecomtest.AppImage(testUser, "https://wework.qpic.cn/x", "IMG1")
	mine.MsgID = 7002
	for range 2 {
		if rep, err := n.cb.Send(waitCtx(t), mine); err != nil || rep.Status != 200 {
			t.Fatalf("image callback: %d %v", rep.Status, err)
		}
	}
	md, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" && rec.ToUser == testUser })
	if err != nil {
		t.Fatal(err)
	}
	if md.Content != "Seen." {
		t.Fatalf("answer %q", md.Content)
	}
	var gets int
	for _, rec := range r.api.Records() {
		if rec.API == "media/get" {
			gets++
		}
	}
	if gets != 1 {
		t.Fatalf("media/get asked %d times, want once (for the allowed user's first delivery)", gets)
	}
}
