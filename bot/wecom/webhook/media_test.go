package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/intaketest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// mediaHook is the webhook with media, in front of a running engine with
// the fake agent, on real Redis, played by the simulator and WeCom's media
// server.
type mediaHook struct {
	r     *replica
	rec   *intaketest.Recorder
	sim   *wecomtest.Sim
	media *wecomtest.MediaServer
	logs  *testenv.LogBuffer
	key   []byte // the bot's EncodingAESKey: the webhook's media key
}

func newMediaHook(t *testing.T, f wecom.Fetcher) *mediaHook {
	t.Helper()
	cfg := testConfig(t, "a")
	cfg.Access.AllowChats = []string{"wrkChat1"}
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "media")), cfg)
	r.run(t)
	rec := intaketest.New(r.e.Engine)
	logs := &testenv.LogBuffer{}
	w := serveWithMedia(t, r.e.ch.Streams(rec), f, slog.New(slog.NewTextHandler(logs, nil)))
	w.r, w.rec, w.logs = r, rec, logs
	return w
}

// serveWithMedia serves the webhook in front of streams, played by the
// simulator, with WeCom's media server beside it.
func serveWithMedia(t *testing.T, streams webhook.Streams, f wecom.Fetcher, log *slog.Logger) *mediaHook {
	t.Helper()
	if f.Hosts == nil {
		f.Hosts = loopbackHosts(t) // the media server's
	}
	h, err := webhook.NewHandler(webhook.HandlerOptions{
		Token: hookToken, EncodingAESKey: hookAESKey, Streams: streams, Logger: log, Media: f,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	media := wecomtest.NewMediaServer(nil)
	t.Cleanup(func() { media.Close(); srv.Close(); h.Close() })
	sim, err := wecomtest.New(wecomtest.Config{URL: srv.URL, Token: hookToken, EncodingAESKey: hookAESKey, AIBotID: hookBotID})
	if err != nil {
		t.Fatal(err)
	}
	key, err := wecom.DecodeAESKey(hookAESKey)
	if err != nil {
		t.Fatal(err)
	}
	return &mediaHook{sim: sim, media: media, key: key}
}

// link serves f encrypted with the bot's key, as WeCom does for the webhook.
func (h *mediaHook) link(t *testing.T, f wecomtest.MediaFile) wecomtest.MediaLink {
	t.Helper()
	f.Key = h.key
	l, err := h.media.Add(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (h *mediaHook) send(t *testing.T, m wecomtest.Message, opts ...wecomtest.Option) *wecomtest.Stream {
	t.Helper()
	st, err := h.sim.Send(context.Background(), m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// noLinkInLogs: a media link is a credential for 5 minutes.
func (h *mediaHook) noLinkInLogs(t *testing.T) {
	t.Helper()
	if s := h.logs.String(); strings.Contains(s, "/cgi-bin/media/") || strings.Contains(s, "sign=") {
		t.Fatalf("a media link reached the log:\n%s", s)
	}
}

func TestWebhookImageMessage(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{})
	l := h.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	st := h.send(t, wecomtest.Message{MsgID: "img1", From: "alice", MsgType: "image", Link: l})
	if st.First.Content != "Fetching the attachments…" || st.First.Finish {
		t.Fatalf("first frame %+v, want the fetching note, not finished", st.First)
	}
	m := h.rec.Wait(t, hangGuard)
	want := []bot.Attachment{{Kind: bot.AttachImage, Name: "img1.png", MIME: "image/png", Data: intaketest.PNG}}
	if !intaketest.SameAttachments(m.Attachments, want) || m.Text != "" || m.Reply.Stream != st.ID || m.Conversation != wecom.SingleChat("alice") {
		t.Fatalf("message %+v", m)
	}
	h.noLinkInLogs(t)
}

func TestWebhookMixedInAGroup(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{})
	l := h.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	st := h.send(t, wecomtest.Message{MsgID: "mx1", From: "alice", ChatID: "wrkChat1", MsgType: "mixed",
		Items: []wecomtest.Item{{Text: "@wecodex why is this red?"}, {ImageURL: l.URL}}})
	m := h.rec.Wait(t, hangGuard)
	want := []bot.Attachment{{Kind: bot.AttachImage, Name: "mx1.png", MIME: "image/png", Data: intaketest.PNG}}
	if m.Text != "why is this red?" || m.Conversation != wecom.GroupChat("wrkChat1") || !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("message %+v", m)
	}
	final := waitFinished(t, h.r.e, st.ID)
	if got := h.r.agent.Prompts(); !slices.Equal(got, []string{"From: alice\n\nwhy is this red?"}) || !strings.Contains(final.Content, answer("From: alice\n\nwhy is this red?")) {
		t.Fatalf("prompts %q, final %q", got, final.Content)
	}
}

func TestWebhookFileGetsASafeName(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{})
	log := []byte("FAIL: TestFlaky (0.02s)\n")
	l := h.link(t, wecomtest.MediaFile{Name: "../../home/alice/.ssh/构建.log", Data: log})
	h.send(t, wecomtest.Message{MsgID: "f1", From: "alice", MsgType: "file", Link: l})
	m := h.rec.Wait(t, hangGuard)
	want := []bot.Attachment{{Kind: bot.AttachFile, Name: "构建.log", MIME: "text/plain; charset=utf-8", Data: log}}
	if !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("attachments %+v, want %+v", m.Attachments, want)
	}
}

func TestWebhookQuoteVoiceAndVideo(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{})
	h.send(t, wecomtest.Message{MsgID: "q1", From: "alice", Text: "fix it",
		Quote: &wecomtest.Quote{Text: "CI is red on main"}})
	if m := h.rec.Wait(t, hangGuard); m.Text != "fix it" || m.Quote != "CI is red on main" {
		t.Fatalf("quote: %+v", m)
	}
	// A quote-only @mention runs the quoted text.
	h.send(t, wecomtest.Message{MsgID: "q2", From: "alice", ChatID: "wrkChat1", Text: "@wecodex",
		Quote: &wecomtest.Quote{MsgType: "mixed", Items: []wecomtest.Item{{Text: "deploy is stuck"}}}})
	if m := h.rec.Wait(t, hangGuard); m.Text != "deploy is stuck" || m.Quote != "" {
		t.Fatalf("quote-only: %+v", m)
	}
	st := h.send(t, wecomtest.Message{MsgID: "v1", From: "alice", MsgType: "voice", Text: "run the tests"})
	if m := h.rec.Wait(t, hangGuard); m.Text != "run the tests" || m.Attachments != nil {
		t.Fatalf("voice: %+v", m)
	}
	waitFinished(t, h.r.e, st.ID)
	mp4 := append([]byte("\x00\x00\x00\x18ftypmp42"), make([]byte, 12)...)
	l := h.link(t, wecomtest.MediaFile{Name: "screen.mp4", ContentType: "video/mp4", Data: mp4})
	h.send(t, wecomtest.Message{MsgID: "vid1", From: "alice", MsgType: "video", Link: l})
	want := []bot.Attachment{{Kind: bot.AttachVideo, Name: "screen.mp4", MIME: "video/mp4", Data: mp4}}
	if m := h.rec.Wait(t, hangGuard); !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("video: %+v", m.Attachments)
	}
}

// Every way a download fails is one line on the message; its text runs.
func TestWebhookMediaProblemsKeepTheText(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{MaxBytes: 1024, Timeout: 100 * time.Millisecond})
	big := h.link(t, wecomtest.MediaFile{Data: bytes.Repeat([]byte{0x89}, 4096)})
	bad := h.link(t, wecomtest.MediaFile{Data: intaketest.PNG, BadPadding: true})
	hang := h.media.AddHanging()
	st := h.send(t, wecomtest.Message{MsgID: "p1", From: "alice", MsgType: "mixed", Items: []wecomtest.Item{
		{Text: "three pictures"}, {ImageURL: big.URL}, {ImageURL: bad.URL}, {ImageURL: hang.URL},
	}})
	m := h.rec.Wait(t, hangGuard)
	want := []bot.Attachment{
		{Kind: bot.AttachImage, Name: "p1", Problem: "The picture is larger than the 1024-byte limit, so it was not downloaded."},
		{Kind: bot.AttachImage, Name: "p1-2", Problem: "The picture could not be decrypted."},
		{Kind: bot.AttachImage, Name: "p1-3", Problem: "The picture could not be downloaded within 100ms."},
	}
	if m.Text != "three pictures" || !intaketest.SameAttachments(m.Attachments, want) {
		t.Fatalf("message %q\n%+v\nwant %+v", m.Text, m.Attachments, want)
	}
	waitFinished(t, h.r.e, st.ID)
	// The turn runs the text, and the agent is told what did not come.
	wantPrompt := "three pictures\n\nNot attached:\n- p1: " + want[0].Problem + "\n- p1-2: " + want[1].Problem + "\n- p1-3: " + want[2].Problem
	if got := h.r.agent.Prompts(); !slices.Equal(got, []string{wantPrompt}) {
		t.Fatalf("prompts %q", got)
	}
	h.noLinkInLogs(t)
}

// WeCom delivers a callback again when it is not answered in 5 s: while a
// download runs, every delivery is answered at once on the same stream, and
// the message is fetched once and runs once.
func TestWebhookRedeliveryDuringDownload(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{})
	l, release, err := h.media.AddHeld(wecomtest.MediaFile{Key: h.key, Data: intaketest.PNG})
	if err != nil {
		t.Fatal(err)
	}
	m := wecomtest.Message{MsgID: "r1", From: "alice", MsgType: "mixed", Items: []wecomtest.Item{{Text: "once"}, {ImageURL: l.URL}}}
	st := h.send(t, m, wecomtest.WithRedeliveries(2))
	for i, f := range append([]wecomtest.Frame{st.First}, st.Redelivered...) {
		if f.ID != st.ID || f.Content != "Fetching the attachments…" || f.Finish {
			t.Fatalf("delivery %d answered %+v, want stream %s fetching", i, f, st.ID)
		}
	}
	if n := h.rec.Count(); n != 0 {
		t.Fatalf("%d messages reached intake before the download ended", n)
	}
	release()
	if got := h.rec.Wait(t, hangGuard); got.Text != "once" || len(got.Attachments) != 1 {
		t.Fatalf("message %+v", got)
	}
	waitFinished(t, h.r.e, st.ID)
	again := h.send(t, m)
	if again.ID != st.ID {
		t.Fatalf("a delivery after the turn opened stream %s, want %s", again.ID, st.ID)
	}
	if got, gets, n := h.r.agent.Prompts(), h.media.Gets(l), h.rec.Count(); !slices.Equal(got, []string{"once"}) || gets != 1 || n != 1 {
		t.Fatalf("prompts %q, downloads %d, received %d; want one each", got, gets, n)
	}
}

// TestWebhookStrangersFilesNotFetched: a user the access lists do not name
// makes the bot download nothing: the callback is answered with intake's
// refusal at once, and WeCom's media server is never asked.
func TestWebhookStrangersFilesNotFetched(t *testing.T) {
	h := newMediaHook(t, wecom.Fetcher{})
	l := h.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	st := h.send(t, wecomtest.Message{MsgID: "img-stranger", From: "mallory", MsgType: "image", Link: l})
	const refused = "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."
	if st.First.Content != refused || !st.First.Finish {
		t.Fatalf("first frame %+v, want the refusal, finished", st.First)
	}
	if m := h.rec.Wait(t, hangGuard); m.ID != "img-stranger" || len(m.Attachments) != 0 {
		t.Fatalf("message %+v, want img-stranger without attachments", m)
	}
	if n := h.media.Gets(l); n != 0 {
		t.Fatalf("the media server was asked %d times for a stranger's picture, want 0", n)
	}
}

// loopbackHosts allow the tests' fakes, which listen on 127.0.0.1.
func loopbackHosts(t *testing.T) *wecom.AllowedHosts {
	t.Helper()
	h, err := wecom.NewAllowedHosts("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A signed callback whose media URL points at a local listener that
// wecom.allowed_hosts does not list (the default: WeCom's hosts): the
// listener is asked nothing, and the card says the file could not be
// fetched. Nothing runs for a message that brought only that.
func TestWebhookMediaFromAHostNotAllowed(t *testing.T) {
	def, err := wecom.NewAllowedHosts(wecom.DefaultAllowedHosts...)
	if err != nil {
		t.Fatal(err)
	}
	h := newMediaHook(t, wecom.Fetcher{Hosts: def})
	l := h.link(t, wecomtest.MediaFile{Data: intaketest.PNG})
	st := h.send(t, wecomtest.Message{MsgID: "far1", From: "alice", MsgType: "image", Link: l})
	final := waitFinished(t, h.r.e, st.ID)
	if want := "📎 far1 was not attached: The picture could not be fetched: its address is not one wecodex may download from."; final.Content != want {
		t.Fatalf("final %q, want %q", final.Content, want)
	}
	if n := h.media.Gets(l); n != 0 {
		t.Fatalf("the media server was asked %d times, want never", n)
	}
	if got := h.r.agent.Prompts(); len(got) != 0 {
		t.Fatalf("prompts %q, want none", got)
	}
	h.noLinkInLogs(t)
}

// The rest of an answer goes to response_url only where wecom.allowed_hosts
// allows: a local listener not listed is asked nothing.
func TestResponseURLDelivererRefusesAHostNotAllowed(t *testing.T) {
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer urls.Close()
	err = (&webhook.ResponseURLDeliverer{}).Deliver(context.Background(), webhook.Delivery{StreamID: "s1", ReplyURL: urls.URL("m1"), Markdown: "the rest"})
	if !errors.Is(err, wecom.ErrHostNotAllowed) || strings.Contains(err.Error(), "response_code") {
		t.Fatalf("deliver: %v, want ErrHostNotAllowed without the response code", err)
	}
	if ps := urls.Posts("m1"); len(ps) != 0 {
		t.Fatalf("posts %+v, want none", ps)
	}
}
