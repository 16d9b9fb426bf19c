package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

const (
	hookToken  = "aibotHookToken"
	hookAESKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	hookBotID  = "aibot-test"
	thinking   = "⏳ Thinking…"
)

func keys(t testing.TB, st *testenv.Stores) []string {
	t.Helper()
	out, err := testenv.Redis(t).Keys(context.Background(), st.DB.Keys().Prefix()+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hookSetup is the webhook in front of a real engine on real Redis. The
// engine is not running, so messages stay queued: these tests are about the
// endpoint, the e2e tests in cmd/wecodex run turns.
type hookSetup struct {
	st     *testenv.Stores
	prefix string
	sim    *wecomtest.Sim
	logs   *testenv.LogBuffer
	urls   *wecomtest.ResponseURLServer
	base   string // the test server's URL
}

func newHook(t *testing.T) *hookSetup {
	t.Helper()
	prefix := testenv.Prefix(t, "aibot")
	st := testenv.OpenStores(t, prefix)
	agent := codex.New(codex.Options{Bin: filepath.Join(t.TempDir(), "never-started")})
	t.Cleanup(func() { _ = agent.Close() })
	ch, err := webhook.New(st, &webhook.ResponseURLDeliverer{Hosts: loopbackHosts(t)}, webhook.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "hook-test", WorkspaceRoot: t.TempDir(),
		Access: bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"wrkChat1"}},
		Logger: slog.New(slog.DiscardHandler),
	}, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testenv.LogBuffer{}
	h, err := webhook.NewHandler(webhook.HandlerOptions{
		Token: hookToken, EncodingAESKey: hookAESKey, Streams: ch.Streams(eng),
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = urls.Close() })
	sim, err := wecomtest.New(wecomtest.Config{
		URL: srv.URL + "/wecom/aibot", Token: hookToken, EncodingAESKey: hookAESKey, AIBotID: hookBotID,
		ResponseURLs: urls,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &hookSetup{st: st, prefix: prefix, sim: sim, logs: logs, urls: urls, base: srv.URL}
}

func statusOf(err error) int {
	var se *wecomtest.StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

func TestWebhookURLCheck(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	if err := h.sim.VerifyURL(ctx); err != nil {
		t.Fatalf("URL check: %v", err)
	}
	for _, tc := range []struct {
		name string
		opt  wecomtest.Option
		want int
	}{
		{"forged signature", wecomtest.WithForgedSignature(), 401},
		{"stale timestamp", wecomtest.WithTimestampOffset(-10 * time.Minute), 403},
	} {
		if err := h.sim.VerifyURL(ctx, tc.opt); statusOf(err) != tc.want {
			t.Errorf("%s: %v, want HTTP %d", tc.name, err, tc.want)
		}
	}
}

func TestWebhookMessageQueuedAndRefreshed(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	s, err := h.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "fix the build"}, wecomtest.WithRedeliveries(2))
	if err != nil {
		t.Fatal(err)
	}
	want := wecomtest.Frame{ID: s.ID, Content: thinking}
	if s.First != want {
		t.Fatalf("first frame %+v, want %+v", s.First, want)
	}
	for i, f := range s.Redelivered {
		if f != want {
			t.Errorf("redelivery %d answered %+v, want the same stream %+v", i+1, f, want)
		}
	}
	f, err := h.sim.Refresh(ctx, s.ID)
	if err != nil || f != want {
		t.Fatalf("refresh = %+v, %v; want %+v", f, err, want)
	}
	// Three deliveries, one queued message, carrying the response_url.
	items, err := h.st.Queued(ctx, "single:alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 {
		t.Fatalf("%d messages queued, want 1: %q", len(items), items)
	}
	var q struct {
		MsgID, Text, User string
		Conv              string `json:"conv"`
		ReplyURL          string `json:"reply_url"`
	}
	if err := json.Unmarshal(items[0], &q); err != nil {
		t.Fatal(err)
	}
	if q.MsgID != s.Message.MsgID || q.Text != "fix the build" || q.Conv != "single:alice" || q.User != "alice" || q.ReplyURL != s.Message.ResponseURL {
		t.Errorf("queued %+v", q)
	}
}

func TestWebhookGroupMention(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	// bob is not allowed himself; the chat is.
	s, err := h.sim.Send(ctx, wecomtest.Message{From: "bob", ChatID: "wrkChat1", Text: "@CodexBot  run the tests"})
	if err != nil {
		t.Fatal(err)
	}
	if s.First.Content != thinking || s.First.Finish {
		t.Fatalf("first frame %+v", s.First)
	}
	items, err := h.st.Queued(ctx, "group:wrkChat1")
	if err != nil || len(items) != 1 {
		t.Fatalf("queued %q, %v", items, err)
	}
	if !strings.Contains(string(items[0]), `"text":"run the tests"`) || !strings.Contains(string(items[0]), `"chat":"group"`) {
		t.Errorf("queued %s", items[0])
	}
}

func TestWebhookRefusalsAndAnswersWithoutATurn(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		msg  wecomtest.Message
		want string
	}{
		{"user not allowed", wecomtest.Message{From: "mallory", Text: "rm -rf /"},
			"Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."},
		{"command", wecomtest.Message{From: "alice", Text: "/stop"}, "Nothing is running in this conversation."},
		{"voice", wecomtest.Message{From: "alice", MsgType: "voice", Text: "/new"}, "OK — the next message starts a fresh session."},
	} {
		s, err := h.sim.Send(ctx, tc.msg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.First != (wecomtest.Frame{ID: s.ID, Content: tc.want, Finish: true}) {
			t.Errorf("%s: first frame %+v, want finished %q", tc.name, s.First, tc.want)
		}
	}
	for _, conv := range []string{"single:mallory", "single:alice"} {
		if items, err := h.st.Queued(ctx, conv); err != nil || len(items) != 0 {
			t.Errorf("queue of %s: %q, %v; want empty", conv, items, err)
		}
	}
}

// A Redis that has held wecodex's data a while (its data mark is there)
// knows an unknown stream for what it is. (Right after Redis lost its data
// the same refresh is answered not finished: engine_redislost_test.go.)
func TestWebhookUnknownStream(t *testing.T) {
	h := newHook(t)
	if err := testenv.Redis(t).Set(context.Background(), store.NewKeys(h.prefix).DataMark(), "1", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	f, err := h.sim.Refresh(context.Background(), "no-such-stream")
	if err != nil {
		t.Fatal(err)
	}
	want := wecomtest.Frame{ID: "no-such-stream", Finish: true,
		Content: "This reply is no longer available. Send the message again if you still need an answer."}
	if f != want {
		t.Fatalf("refresh of an unknown stream = %+v, want %+v", f, want)
	}
}

func TestWebhookEvents(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	r, err := h.sim.SendEvent(ctx, "alice", "enter_chat")
	if err != nil {
		t.Fatal(err)
	}
	if r == nil || r.MsgType != "text" || r.Text.Content != "Hi! Send me a coding task and I will work on it with Codex. /help lists the commands." {
		t.Fatalf("enter_chat reply %+v", r)
	}
	r, err = h.sim.SendEvent(ctx, "alice", "feedback_event")
	if err != nil || r != nil {
		t.Fatalf("feedback_event reply %+v, %v; want an empty 200", r, err)
	}
}

func TestWebhookUnsupportedMsgType(t *testing.T) {
	h := newHook(t)
	d, err := h.sim.Deliver(context.Background(),
		[]byte(`{"msgid":"m-location","aibotid":"aibot-test","chattype":"single","from":{"userid":"alice"},"msgtype":"location","location":{"latitude":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := wecom.ParseReply(d.Plaintext)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stream == nil || !r.Stream.Finish || r.Stream.Content != "Sorry, I cannot read this kind of message. Send text, voice, a picture, a file or a video." {
		t.Fatalf("reply %+v", r.Stream)
	}
}

// Every rejected request changes nothing in Redis and logs a line that names
// the check, without the body or the query.
func TestWebhookRejects(t *testing.T) {
	h := newHook(t)
	ctx := context.Background()
	const secret = "TOP-SECRET-BODY-TEXT"
	msg := wecomtest.Message{From: "alice", Text: secret}
	for _, tc := range []struct {
		name string
		opt  wecomtest.Option
		want int
		log  string
	}{
		{"forged signature", wecomtest.WithForgedSignature(), 401, "signature mismatch"},
		{"stale timestamp", wecomtest.WithTimestampOffset(-6 * time.Minute), 403, "timestamp outside the accepted window"},
		{"future timestamp", wecomtest.WithTimestampOffset(6 * time.Minute), 403, "timestamp outside the accepted window"},
		{"2 MiB body", wecomtest.WithBodySize(2 << 20), 413, "request body too large"},
		{"1 MiB + 1 body", wecomtest.WithBodySize(wecom.MaxBodyBytes + 1), 413, "request body too large"},
	} {
		_, err := h.sim.Send(ctx, msg, tc.opt)
		if got := statusOf(err); got != tc.want {
			t.Errorf("%s: %v, want HTTP %d", tc.name, err, tc.want)
		}
		if !strings.Contains(h.logs.String(), tc.log) {
			t.Errorf("%s: log lacks %q:\n%s", tc.name, tc.log, h.logs.String())
		}
	}
	// Malformed callbacks correctly signed: 400.
	for _, raw := range []string{
		`not json ` + secret,
		`{"msgid":"m1","aibotid":"aibot-test","chattype":"single","from":{"userid":"alice"},"msgtype":"text"}`,
		`{"msgtype":"stream","aibotid":"aibot-test","stream":{}}`,
	} {
		_, err := h.sim.Deliver(ctx, []byte(raw))
		if statusOf(err) != 400 {
			t.Errorf("%q: %v, want HTTP 400", raw, err)
		}
	}
	// Not WeCom's body at all, and no query.
	for _, tc := range []struct {
		target, body string
		want         int
	}{
		{"/wecom/aibot?msg_signature=a&timestamp=1&nonce=n", secret, 403},
		{"/wecom/aibot", `{"encrypt":"` + secret + `"}`, 400},
	} {
		resp, err := http.Post(h.base+tc.target, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("POST %s: HTTP %d, want %d", tc.target, resp.StatusCode, tc.want)
		}
	}
	if ks := keys(t, h.st); len(ks) != 0 {
		t.Errorf("rejected requests left keys in Redis: %q", ks)
	}
	if strings.Contains(h.logs.String(), secret) || strings.Contains(h.logs.String(), hookToken) {
		t.Errorf("a log line carries the body or the token:\n%s", h.logs.String())
	}
	if n := strings.Count(h.logs.String(), "level=WARN msg=\"aibot callback rejected\""); n != 10 {
		t.Errorf("%d rejection lines, want 10:\n%s", n, h.logs.String())
	}
}

func TestResponseURLDeliverer(t *testing.T) {
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer urls.Close()
	d := &webhook.ResponseURLDeliverer{Hosts: loopbackHosts(t)}
	ctx := context.Background()
	u := urls.URL("m1")
	if err := d.Deliver(ctx, webhook.Delivery{StreamID: "s1", ReplyURL: u, Markdown: "the **rest**"}); err != nil {
		t.Fatal(err)
	}
	ps := urls.Posts("m1")
	if len(ps) != 1 || !ps[0].Accepted || ps[0].Message.MsgType != "markdown" || ps[0].Message.Markdown.Content != "the **rest**" {
		t.Fatalf("posts %+v", ps)
	}
	// WeCom takes one message per response_url.
	err = d.Deliver(ctx, webhook.Delivery{StreamID: "s1", ReplyURL: u, Markdown: "more"})
	var api *wecom.APIError
	if !errors.As(err, &api) || api.Code != wecomtest.ErrCodeResponseURLUsed {
		t.Fatalf("second post: %v, want errcode %d", err, wecomtest.ErrCodeResponseURLUsed)
	}
	if strings.Contains(err.Error(), "response_code") {
		t.Errorf("error carries the response code: %v", err)
	}
	if err := d.Deliver(ctx, webhook.Delivery{StreamID: "s2", Markdown: "x"}); err == nil {
		t.Error("no response_url: want an error")
	}
}
