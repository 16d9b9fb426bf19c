package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// discardIntake takes every message and decides nothing: the benchmark
// measures the endpoint, not the engine.
type discardIntake struct{}

func (discardIntake) Receive(context.Context, bot.Message) (bot.Receipt, error) {
	return bot.Receipt{}, nil
}

func (discardIntake) Allowed(bot.Message) bool { return true }

func (discardIntake) Decide(context.Context, bot.Conversation, string, int64, bot.Verdict) (bot.Decided, error) {
	return bot.Decided{}, nil
}

// BenchmarkCallbackText is one text callback through the endpoint in
// process: query and timestamp checks, signature, AES decryption, XML parse,
// the hand-off to intake, the empty 200.
func BenchmarkCallbackText(b *testing.B) {
	// A text callback touches no store: a nil one proves it.
	c, err := New(Options{CorpID: testCorp, AgentID: "1000002", Secret: testSecret, Token: testToken, EncodingAESKey: testAESKey, Store: struct{ Store }{}})
	if err != nil {
		b.Fatal(err)
	}
	h := c.Handler(discardIntake{})
	cb, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{CorpID: testCorp, AgentID: testAgent, Token: testToken, EncodingAESKey: testAESKey})
	if err != nil {
		b.Fatal(err)
	}
	body, q, err := cb.Seal([]byte("<xml><ToUserName><![CDATA[" + testCorp + "]]></ToUserName><FromUserName><![CDATA[zhangsan]]></FromUserName>" +
		"<CreateTime>1</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[" + strings.Repeat("run the tests ", 20) +
		"]]></Content><MsgId>7300000000000000001</MsgId><AgentID>1000002</AgentID></xml>"))
	if err != nil {
		b.Fatal(err)
	}
	target := "/wecom/app?" + q.Encode()
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, target, strings.NewReader(string(body))))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}
