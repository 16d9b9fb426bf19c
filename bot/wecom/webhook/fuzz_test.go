package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
)

// echoEngine answers every message with a frame naming what it received and
// every refresh with an unknown stream. The fuzz target exercises the
// webhook's own checks, parsing and sealing thousands of times a second,
// which a Redis-backed engine would only slow down.
type echoEngine struct{ got []bot.Message }

func (e *echoEngine) Allowed(bot.Message) bool { return true }

func (e *echoEngine) Receive(_ context.Context, m bot.Message) (webhook.Frame, error) {
	e.got = append(e.got, m)
	return webhook.Frame{StreamID: "s-" + strconv.Itoa(len(e.got)), Content: "got it"}, nil
}

// refuseAll is a transport that reaches nothing.
type refuseAll struct{}

func (refuseAll) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in the fuzz target")
}

func (e *echoEngine) Frame(context.Context, string, webhook.Asker) (webhook.Frame, bool, error) {
	return webhook.Frame{}, false, nil
}

// FuzzAIBotWebhook feeds the handler arbitrary callbacks, both correctly
// encrypted and signed (so they reach the parser) and as raw unsigned bodies.
// A signed callback gets 200 with a reply WeCom accepts, or 400; an unsigned
// body never gets 200; a message reaches the engine only with an id, a user
// and a conversation, and its text is valid UTF-8 when the callback was.
func FuzzAIBotWebhook(f *testing.F) {
	for _, seed := range []string{
		`{"msgid":"m1","aibotid":"b","chattype":"single","from":{"userid":"alice"},"msgtype":"text","text":{"content":"hi"}}`,
		`{"msgid":"m2","aibotid":"b","chatid":"c1","chattype":"group","from":{"userid":"bob"},"msgtype":"text","text":{"content":"@Bot  run it"},"quote":{"msgtype":"text","text":{"content":"quoted"}}}`,
		`{"msgid":"m3","aibotid":"b","chattype":"single","from":{"userid":"alice"},"msgtype":"mixed","mixed":{"msg_item":[{"msgtype":"text","text":{"content":"a"}},{"msgtype":"image","image":{"url":"u"}}]}}`,
		`{"msgid":"m4","aibotid":"b","chattype":"single","from":{"userid":"alice"},"msgtype":"voice","voice":{"content":"/stop"}}`,
		`{"msgid":"m5","aibotid":"b","msgtype":"stream","stream":{"id":"s1"}}`,
		`{"msgid":"m6","aibotid":"b","chattype":"single","from":{"userid":"alice"},"msgtype":"event","event":{"eventtype":"enter_chat"}}`,
		`{"msgid":"m7","aibotid":"b","chattype":"single","from":{"userid":"alice"},"msgtype":"video"}`,
		`{"encrypt":"AAAA"}`,
		``,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	c, err := wecom.NewCrypter(hookToken, hookAESKey, wecom.AIBotReceiveID)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	f.Fuzz(func(t *testing.T, data []byte, sign bool) {
		eng := &echoEngine{}
		h, err := webhook.NewHandler(webhook.HandlerOptions{
			Token: hookToken, EncodingAESKey: hookAESKey, Streams: eng,
			Now: func() time.Time { return now },
			// Files are fetched from nowhere: the fuzzer must not reach
			// the network, and a failed fetch still hands the message on.
			Media: wecom.Fetcher{Client: &http.Client{Transport: refuseAll{}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		ts := strconv.FormatInt(now.Unix(), 10)
		q := wecom.Query{Timestamp: ts, Nonce: "n0nce", Signature: "0000000000000000000000000000000000000000"}
		body := data
		if sign {
			enc, err := c.Encrypt(data)
			if err != nil {
				t.Fatal(err)
			}
			q.Signature = c.Signature(ts, q.Nonce, enc)
			body, _ = json.Marshal(map[string]string{"encrypt": enc})
		}
		req := httptest.NewRequest(http.MethodPost, "/wecom/aibot?"+q.Values().Encode(), bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		h.Close() // a message with files is received in the background

		switch {
		case !sign && rec.Code == http.StatusOK:
			t.Fatalf("an unsigned body was answered 200")
		case rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest && (sign || rec.Code/100 != 4):
			t.Fatalf("status %d", rec.Code)
		case rec.Code != http.StatusOK:
			if len(eng.got) != 0 {
				t.Fatalf("a rejected callback reached the engine: %+v", eng.got)
			}
			return
		}
		if rec.Body.Len() > 0 {
			pt, err := c.OpenReply(rec.Body.Bytes())
			if err != nil {
				t.Fatalf("reply does not open: %v", err)
			}
			r, err := wecom.ParseReply(pt)
			if err != nil {
				t.Fatalf("reply does not parse: %v", err)
			}
			if r.Stream != nil {
				if err := r.Stream.Validate(); err != nil {
					t.Fatalf("reply frame: %v", err)
				}
			}
		}
		for _, m := range eng.got {
			if m.ID == "" || m.User == "" || m.Conversation.Kind == "" || m.Conversation.ID == "" {
				t.Fatalf("engine got a message without id, user or conversation: %+v", m)
			}
			if utf8.Valid(data) && !utf8.ValidString(m.Text) {
				t.Fatalf("engine got invalid UTF-8 text %q", m.Text)
			}
		}
	})
}

func (e *echoEngine) Hold(_ context.Context, m bot.Message, text string) (webhook.Frame, bool, error) {
	return webhook.Frame{StreamID: m.Reply.Stream, Content: text}, true, nil
}

func (e *echoEngine) Settle(context.Context, bot.Message, string) error { return nil }
