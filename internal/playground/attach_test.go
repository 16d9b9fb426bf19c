package playground

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/intaketest"
)

// botStreams is the engine behind a real webhook handler: it keeps each
// message, attachments fetched, and answers a finished frame.
type botStreams struct{ got chan bot.Message }

func (b *botStreams) Allowed(bot.Message) bool { return true }

func (b *botStreams) Receive(_ context.Context, m bot.Message) (webhook.Frame, error) {
	b.got <- m
	return webhook.Frame{StreamID: m.Reply.Stream, Content: "ok", Finish: true}, nil
}

func (b *botStreams) Frame(_ context.Context, id string, _ webhook.Asker) (webhook.Frame, bool, error) {
	return webhook.Frame{StreamID: id, Content: "got it", Finish: true}, true, nil
}

func (b *botStreams) Hold(_ context.Context, m bot.Message, text string) (webhook.Frame, bool, error) {
	return webhook.Frame{StreamID: m.Reply.Stream, Content: text}, true, nil
}

func (b *botStreams) Settle(context.Context, bot.Message, string) error { return nil }

func waitMessage(t *testing.T, ch <-chan bot.Message) bot.Message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(time.Minute):
		t.Fatal("the bot got no message")
	}
	return bot.Message{}
}

// In webhook mode the playground serves an attached picture encrypted with
// the bot's EncodingAESKey; the real webhook fetches and decrypts it.
func TestAttachOverTheWebhook(t *testing.T) {
	const token, aesKey = "tok", "DDkUDeGAyis6gofMlDlvJjh514XJ0TXoZKXQrQL8lnA"
	streams := &botStreams{got: make(chan bot.Message, 2)}
	hosts, err := wecom.NewAllowedHosts("127.0.0.1") // the playground's media server, as configs/wecodex.yaml lists it
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(webhook.HandlerOptions{Token: token, EncodingAESKey: aesKey, Streams: streams, Media: wecom.Fetcher{Hosts: hosts}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })
	p, err := New(Config{Endpoint: srv.URL, Token: token, EncodingAESKey: aesKey, User: "playground"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })

	if _, err := p.Attach("image", "shot.png", "why red?", intaketest.PNG); err != nil {
		t.Fatal(err)
	}
	m := waitMessage(t, streams.got)
	if m.Text != "why red?" || len(m.Attachments) != 1 || !bytes.Equal(m.Attachments[0].Data, intaketest.PNG) ||
		m.Attachments[0].Kind != bot.AttachImage || m.Attachments[0].MIME != "image/png" || m.Attachments[0].Name != "shot.png" {
		t.Fatalf("message %+v", m)
	}
	log := []byte("FAIL: TestX\n")
	if _, err := p.Attach("file", "ci.log", "", log); err != nil {
		t.Fatal(err)
	}
	m = waitMessage(t, streams.got)
	if len(m.Attachments) != 1 || !bytes.Equal(m.Attachments[0].Data, log) || m.Attachments[0].Name != "ci.log" || m.Attachments[0].Kind != bot.AttachFile {
		t.Fatalf("file message %+v", m)
	}
	for _, bad := range []struct{ kind, text string }{{"file", "with text"}, {"voice", ""}} {
		if _, err := p.Attach(bad.kind, "x", bad.text, log); err == nil {
			t.Errorf("Attach(%q, text %q) accepted", bad.kind, bad.text)
		}
	}
}

// On the long connection each attached file gets its own key, named in the
// callback as WeCom does.
func TestAttachOverTheLongConnection(t *testing.T) {
	p := newLongConnPlayground(t)
	ctx, c := subscribe(t, p)
	if _, err := p.Attach("image", "shot.png", "", intaketest.PNG); err != nil {
		t.Fatal(err)
	}
	cb := readFrame(t, ctx, c, "aibot_msg_callback")
	content, err := wecom.ParseContent(cb.Body)
	if err != nil || len(content.Media) != 1 || content.Media[0].AESKey == "" || !strings.Contains(string(cb.Body), `"msgtype":"image"`) {
		t.Fatalf("callback %s: %+v, %v", cb.Body, content, err)
	}
	hosts, err := wecom.NewAllowedHosts("127.0.0.1") // the playground's media server, as configs/wecodex.yaml lists it
	if err != nil {
		t.Fatal(err)
	}
	got := wecom.Fetcher{Hosts: hosts}.Fetch(ctx, "m", content.Media)
	if len(got) != 1 || got[0].Problem != "" || !bytes.Equal(got[0].Data, intaketest.PNG) || got[0].Name != "shot.png" {
		t.Fatalf("fetched %+v", got)
	}
}

func TestAttachHandlerChecks(t *testing.T) {
	p := newTestPlayground(t)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	for _, tc := range []struct{ body, ctype, want string }{
		{`{"kind":"image","name":"a.png","data":"***"}`, "application/json", "data is not base64"},
		{`{"kind":"image","name":"a.png","data":""}`, "application/json", "the file has 0 bytes; attach 1 byte to 20 MiB"},
		{`kind=image`, "application/x-www-form-urlencoded", "send JSON"},
	} {
		resp, err := http.Post(srv.URL+Path+"/attach", tc.ctype, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 4 || !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: %d %s, want a 4xx saying %q", tc.body, resp.StatusCode, b.String(), tc.want)
		}
	}
}
