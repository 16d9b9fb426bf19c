package longconn

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/intaketest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

type mediaConn struct {
	srv   *wecomtest.LongConnServer
	media *wecomtest.MediaServer
	rec   *intaketest.Recorder
	logs  *testenv.LogBuffer
}

// newMediaConn runs the long-connection channel against the fake server,
// with WeCom's media server, handing messages to a recorder.
func newMediaConn(t *testing.T, f wecom.Fetcher, strangers ...string) *mediaConn {
	t.Helper()
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	media := wecomtest.NewMediaServer(nil)
	st := testenv.OpenStores(t, testenv.Prefix(t, "longconn-media"))
	logs := &testenv.LogBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	rec := intaketest.New(nil)
	rec.Strangers = strangers
	var ch *Channel
	conn, err := New(Config{
		Client: Options{URL: srv.URL(), BotID: testBot, Secret: testSecret,
			OnCallback: func(ctx context.Context, fr Frame) { ch.Callbacks(rec)(ctx, fr) }},
		Replica: "A", Store: st, HolderTTL: 3 * time.Second, RenewEvery: time.Second, Log: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ch = NewChannel(conn, log)
	if f.Hosts == nil {
		hosts, err := wecom.NewAllowedHosts("127.0.0.1") // the media server's
		if err != nil {
			t.Fatal(err)
		}
		f.Hosts = hosts
	}
	ch.Media = f
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = conn.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; ch.Close(); media.Close() })
	waitHolding(t, conn)
	return &mediaConn{srv: srv, media: media, rec: rec, logs: logs}
}

func (c *mediaConn) link(t *testing.T, f wecomtest.MediaFile) wecomtest.MediaLink {
	t.Helper()
	l, err := c.media.Add(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (c *mediaConn) push(t *testing.T, m wecomtest.LongConnMessage) string {
	t.Helper()
	reqID, err := c.srv.PushMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	return reqID
}

func TestLongConnImageWithItsOwnKey(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{})
	l := c.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	reqID := c.push(t, wecomtest.LongConnMessage{MsgID: "img1", UserID: "zhangsan", MsgType: "image", Link: l})
	m := c.rec.Wait(t, time.Minute)
	want := []bot.Attachment{{Kind: bot.AttachImage, Name: "img1.png", MIME: "image/png", Data: intaketest.PNG}}
	if !intaketest.SameAttachments(m.Attachments, want) || m.Text != "" || m.Reply.Ref != reqID || m.Conversation != wecom.SingleChat("zhangsan") || m.Channel != Name {
		t.Fatalf("message %+v", m)
	}
	if s := c.logs.String(); strings.Contains(s, "/cgi-bin/media/") || strings.Contains(s, l.AESKey) {
		t.Fatalf("the link or key reached the log:\n%s", s)
	}
}

func TestLongConnMixedInAGroupAndFile(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{})
	img := c.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	c.push(t, wecomtest.LongConnMessage{MsgID: "mx1", UserID: "lisi", ChatID: "wrk1", MsgType: "mixed",
		Items: []wecomtest.Item{{Text: "@Codex what broke?"}, {ImageURL: img.URL, AESKey: img.AESKey}}})
	m := c.rec.Wait(t, time.Minute)
	want := []bot.Attachment{{Kind: bot.AttachImage, Name: "mx1.png", MIME: "image/png", Data: intaketest.PNG}}
	if m.Text != "what broke?" || m.Conversation != wecom.GroupChat("wrk1") || !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("mixed: %+v", m)
	}
	data := []byte("panic: nil map\n")
	f := c.link(t, wecomtest.MediaFile{Name: `..\..\Windows\crash.log`, Data: data})
	c.push(t, wecomtest.LongConnMessage{MsgID: "f1", UserID: "lisi", MsgType: "file", Link: f})
	want = []bot.Attachment{{Kind: bot.AttachFile, Name: "crash.log", MIME: "text/plain; charset=utf-8", Data: data}}
	if m := c.rec.Wait(t, time.Minute); !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("file: %+v", m.Attachments)
	}
}

func TestLongConnQuoteAndVoice(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{})
	c.push(t, wecomtest.LongConnMessage{MsgID: "q1", UserID: "lisi", ChatID: "wrk1", Text: "@Codex what is this?",
		Quote: &wecomtest.Quote{MsgType: "image", Link: wecomtest.MediaLink{URL: "http://127.0.0.1:1/q", AESKey: "k"}}})
	if m := c.rec.Wait(t, time.Minute); m.Text != "what is this?" || m.Quote != "[a picture]" || m.Attachments != nil {
		t.Fatalf("quote of a picture: %+v", m)
	}
	c.push(t, wecomtest.LongConnMessage{MsgID: "q2", UserID: "lisi", ChatID: "wrk1", Text: "@Codex",
		Quote: &wecomtest.Quote{Text: "CI 又挂了"}})
	if m := c.rec.Wait(t, time.Minute); m.Text != "CI 又挂了" || m.Quote != "" {
		t.Fatalf("quote-only: %+v", m)
	}
	c.push(t, wecomtest.LongConnMessage{MsgID: "v1", UserID: "lisi", MsgType: "voice", Text: "修一下测试"})
	if m := c.rec.Wait(t, time.Minute); m.Text != "修一下测试" {
		t.Fatalf("voice: %+v", m)
	}
}

func TestLongConnMediaProblems(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{MaxBytes: 1024, Timeout: 100 * time.Millisecond})
	big := c.link(t, wecomtest.MediaFile{Data: bytes.Repeat([]byte{1}, 4096)})
	bad := c.link(t, wecomtest.MediaFile{Data: intaketest.PNG, BadPadding: true})
	hang := c.media.AddHanging()
	c.push(t, wecomtest.LongConnMessage{MsgID: "p1", UserID: "zhangsan", MsgType: "mixed", Items: []wecomtest.Item{
		{Text: "look"}, {ImageURL: big.URL, AESKey: big.AESKey}, {ImageURL: bad.URL, AESKey: bad.AESKey}, {ImageURL: hang.URL, AESKey: big.AESKey},
	}})
	m := c.rec.Wait(t, time.Minute)
	want := []bot.Attachment{
		{Kind: bot.AttachImage, Name: "p1", Problem: "The picture is larger than the 1024-byte limit, so it was not downloaded."},
		{Kind: bot.AttachImage, Name: "p1-2", Problem: "The picture could not be decrypted."},
		{Kind: bot.AttachImage, Name: "p1-3", Problem: "The picture could not be downloaded within 100ms."},
	}
	if m.Text != "look" || !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("message %q %+v\nwant %+v", m.Text, m.Attachments, want)
	}
}

// A slow download holds neither other messages nor a redelivery of its own.
func TestLongConnDownloadDoesNotHoldTheConnection(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{})
	l, release, err := c.media.AddHeld(wecomtest.MediaFile{Data: intaketest.PNG})
	if err != nil {
		t.Fatal(err)
	}
	slow := wecomtest.LongConnMessage{MsgID: "slow", UserID: "zhangsan", MsgType: "image", Link: l}
	c.push(t, slow)
	c.push(t, slow) // WeCom's redelivery while the download runs
	c.push(t, wecomtest.LongConnMessage{MsgID: "t1", UserID: "lisi", Text: "meanwhile"})
	if m := c.rec.Wait(t, time.Minute); m.ID != "t1" {
		t.Fatalf("first message taken %q, want the text one while the download runs", m.ID)
	}
	release()
	if m := c.rec.Wait(t, time.Minute); m.ID != "slow" || len(m.Attachments) != 1 || m.Attachments[0].Problem != "" {
		t.Fatalf("second message %+v", m)
	}
	// Nothing else comes: a message after the two proves the redelivery was dropped.
	c.push(t, wecomtest.LongConnMessage{MsgID: "t2", UserID: "lisi", Text: "after"})
	if m := c.rec.Wait(t, time.Minute); m.ID != "t2" || c.rec.Count() != 3 || c.media.Gets(l) != 1 {
		t.Fatalf("then %q, %d messages, %d downloads; want t2, 3, 1", m.ID, c.rec.Count(), c.media.Gets(l))
	}
}

// TestLongConnStrangersFilesNotFetched: a user the access lists do not name
// makes the bot download nothing; the message goes to intake without its
// files, and intake refuses it.
func TestLongConnStrangersFilesNotFetched(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{}, "mallory")
	l := c.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	c.push(t, wecomtest.LongConnMessage{MsgID: "img-stranger", UserID: "mallory", MsgType: "image", Link: l})
	m := c.rec.Wait(t, time.Minute)
	if m.ID != "img-stranger" || len(m.Attachments) != 0 {
		t.Fatalf("message %+v, want img-stranger without attachments", m)
	}
	if n := c.media.Gets(l); n != 0 {
		t.Fatalf("the media server was asked %d times for a stranger's picture, want 0", n)
	}
}

// A picture, then a text and a second picture in the same chat, the
// picture's download held: nothing of that chat is received before the
// picture, and then all three in the order they were sent; another chat's
// text meanwhile is not held. The download is held instead of the 50 ms a
// user leaves between the two, so the order cannot depend on speed.
func TestLongConnMessagesOfAChatRunInOrder(t *testing.T) {
	c := newMediaConn(t, wecom.Fetcher{})
	first, release, err := c.media.AddHeld(wecomtest.MediaFile{Data: intaketest.PNG})
	if err != nil {
		t.Fatal(err)
	}
	second := c.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	c.push(t, wecomtest.LongConnMessage{MsgID: "pic1", UserID: "zhangsan", MsgType: "image", Link: first})
	c.push(t, wecomtest.LongConnMessage{MsgID: "txt1", UserID: "zhangsan", Text: "what is in the picture?"})
	c.push(t, wecomtest.LongConnMessage{MsgID: "pic2", UserID: "zhangsan", MsgType: "image", Link: second})
	// Callbacks are handled in arrival order: once lisi's text is received,
	// zhangsan's three were handled and wait.
	c.push(t, wecomtest.LongConnMessage{MsgID: "other", UserID: "lisi", Text: "meanwhile"})
	if m := c.rec.Wait(t, time.Minute); m.ID != "other" || c.rec.Count() != 1 {
		t.Fatalf("first message taken %q (%d in all), want lisi's text alone while the picture downloads", m.ID, c.rec.Count())
	}
	release()
	for range 3 {
		c.rec.Wait(t, time.Minute)
	}
	var got []string
	for _, m := range c.rec.All()[1:] {
		got = append(got, m.ID)
		if m.ID != "txt1" && (len(m.Attachments) != 1 || m.Attachments[0].Problem != "") {
			t.Fatalf("%s taken with attachments %+v", m.ID, m.Attachments)
		}
	}
	if want := []string{"pic1", "txt1", "pic2"}; !slices.Equal(got, want) {
		t.Fatalf("zhangsan's messages taken in the order %q, want %q", got, want)
	}
	// The line is gone: a text now is taken at once, in the callback.
	c.push(t, wecomtest.LongConnMessage{MsgID: "txt2", UserID: "zhangsan", Text: "thanks"})
	if m := c.rec.Wait(t, time.Minute); m.ID != "txt2" || c.rec.Count() != 5 {
		t.Fatalf("then %q, %d messages; want txt2, 5", m.ID, c.rec.Count())
	}
}
