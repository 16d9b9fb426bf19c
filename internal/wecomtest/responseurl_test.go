package wecomtest

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
)

func TestResponseURLServer(t *testing.T) {
	var mu sync.Mutex
	var live []string
	rs, err := NewResponseURLServer(func(p Post) { mu.Lock(); live = append(live, p.MsgID); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	ctx := context.Background()
	c := http.DefaultClient

	u := rs.URL("m1")
	if rs.URL("m1") != u || rs.URL("m2") == u {
		t.Fatal("URL must be stable per message and distinct across messages")
	}
	if err := wecom.PostResponseURL(ctx, loopback, c, u, wecom.MarkdownMessage("the rest of the answer")); err != nil {
		t.Fatal(err)
	}
	// One POST per response_url.
	err = wecom.PostResponseURL(ctx, loopback, c, u, wecom.MarkdownMessage("again"))
	var apiErr *wecom.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != ErrCodeResponseURLUsed {
		t.Fatalf("second post: %v", err)
	}
	card := wecom.ResponseURLMessage{MsgType: "template_card", TemplateCard: json.RawMessage(`{"card_type":"text_notice"}`)}
	if err := wecom.PostResponseURL(ctx, loopback, c, rs.URL("m2"), card); err != nil {
		t.Fatal(err)
	}
	err = wecom.PostResponseURL(ctx, loopback, c, rs.URL("m3"), wecom.ResponseURLMessage{MsgType: "text"})
	if !errors.As(err, &apiErr) || apiErr.Code != ErrCodeInvalidMsgType {
		t.Fatalf("text msgtype: %v", err)
	}

	ps, err := rs.Wait(ctx, "m1", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !ps[0].Accepted || ps[0].Message.Markdown.Content != "the rest of the answer" || ps[1].Accepted || ps[1].Message.Markdown.Content != "again" {
		t.Fatalf("posts = %+v", ps)
	}
	if got := rs.Posts("m2"); len(got) != 1 || string(got[0].Message.TemplateCard) != `{"card_type":"text_notice"}` {
		t.Fatalf("m2 posts = %+v", got)
	}
	mu.Lock()
	if len(live) != 4 {
		t.Fatalf("onPost saw %v", live)
	}
	mu.Unlock()

	// Wait gives up with the context.
	wctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := rs.Wait(wctx, "m9", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on cancelled ctx: %v", err)
	}
}

func TestResponseURLExpires(t *testing.T) {
	rs, err := NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	base := time.Unix(1_750_000_000, 0)
	var mu sync.Mutex
	now := base
	rs.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	u := rs.URL("late")
	mu.Lock()
	now = base.Add(ResponseURLValidity + time.Second)
	mu.Unlock()
	err = wecom.PostResponseURL(context.Background(), loopback, http.DefaultClient, u, wecom.MarkdownMessage("too late"))
	var apiErr *wecom.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != ErrCodeResponseURLUsed || apiErr.Msg != "response_url expired" {
		t.Fatalf("expired: %v", err)
	}
}

// loopback allows the fake, which listens on 127.0.0.1.
var loopback = func() *wecom.AllowedHosts {
	h, err := wecom.NewAllowedHosts("127.0.0.1")
	if err != nil {
		panic(err)
	}
	return h
}()
