package main

import (
	"context"
	"testing"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// chatChannel is alice's 1:1 chat with a running wecodex on one WeCom
// channel: say sends a command and returns its answer as WeCom received
// it; turn sends a message and returns its turn's end as WeCom received
// it (the final frame, or the answer message); begin sends a message and
// returns what waits for its end, so a test can act while its turn runs;
// stranger sends text as mallory, on no access list, in her own 1:1 chat
// and returns the answer.
type chatChannel struct {
	conv     string
	say      func(t *testing.T, ctx context.Context, text string) string
	turn     func(t *testing.T, ctx context.Context, text string) string
	begin    func(t *testing.T, ctx context.Context, text string) func() string
	stranger func(t *testing.T, ctx context.Context, text string) string
}

// webhookChat is alice's chat through the webhook's callbacks: a
// command's answer is its stream's first (and final) frame, a turn's end
// its last.
func webhookChat(b *botProc) chatChannel {
	return chatChannel{
		conv: "single:alice",
		say: func(t *testing.T, ctx context.Context, text string) string {
			return sayDirect(t, ctx, b.sim, "alice", text)
		},
		turn: func(t *testing.T, ctx context.Context, text string) string {
			return webhookBegin(t, ctx, b, text)()
		},
		begin: func(t *testing.T, ctx context.Context, text string) func() string {
			return webhookBegin(t, ctx, b, text)
		},
		stranger: func(t *testing.T, ctx context.Context, text string) string {
			return sayDirect(t, ctx, b.sim, "mallory", text)
		},
	}
}

func webhookBegin(t *testing.T, ctx context.Context, b *botProc, text string) func() string {
	t.Helper()
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return func() string {
		last, _ := follow(t, ctx, b.sim, s.ID)
		return last.Content
	}
}

// longConnChat is alice's chat through the long connection: either
// answer is the final frame of the stream on the message's req_id.
func longConnChat(srv *wecomtest.LongConnServer) chatChannel {
	beginAs := func(user string) func(t *testing.T, ctx context.Context, text string) func() string {
		return func(t *testing.T, ctx context.Context, text string) func() string {
			reqID := push(t, srv, user, text)
			return func() string {
				return waitRecord(t, ctx, srv, 0, text+"'s final frame", func(r wecomtest.Record) bool {
					return r.Kind == wecomtest.KindRequest && r.ReqID == reqID && r.Stream().Finish
				}).Stream().Content
			}
		}
	}
	begin := beginAs("alice")
	final := func(t *testing.T, ctx context.Context, text string) string { return begin(t, ctx, text)() }
	stranger := func(t *testing.T, ctx context.Context, text string) string { return beginAs("mallory")(t, ctx, text)() }
	return chatChannel{conv: "single:alice", say: final, turn: final, begin: begin, stranger: stranger}
}

// appChat is alice's chat with the self-built app: either answer is the
// first markdown message qyapi's message/send delivered to her after the
// callback and after the answer taken last (a message sent while a turn
// runs is answered before it ends).
func appChat(api *wecomtest.AppAPI, cb *wecomtest.AppCallbacks) chatChannel {
	begin := appBegin(api, cb, "alice")
	next := func(t *testing.T, ctx context.Context, text string) string { return begin(t, ctx, text)() }
	stranger := func(t *testing.T, ctx context.Context, text string) string {
		return appBegin(api, cb, "mallory")(t, ctx, text)()
	}
	return chatChannel{conv: "app:alice", say: next, turn: next, begin: begin, stranger: stranger}
}

// appBegin is appChat's begin for user.
func appBegin(api *wecomtest.AppAPI, cb *wecomtest.AppCallbacks, user string) func(t *testing.T, ctx context.Context, text string) func() string {
	taken := 0
	return func(t *testing.T, ctx context.Context, text string) func() string {
		t.Helper()
		after := len(api.Records())
		if rep, err := cb.Send(ctx, wecomtest.AppText(user, text)); err != nil || rep.Status != 200 {
			t.Fatalf("%s: callback %d %v", text, rep.Status, err)
		}
		return func() string {
			r, err := api.Wait(ctx, func(r wecomtest.AppRecord) bool {
				return r.Seq > max(after, taken) && r.API == "message/send" && r.ToUser == user && r.MsgType == "markdown" && r.Errcode == 0
			})
			if err != nil {
				t.Fatalf("%s: no markdown message delivered: %v", text, err)
			}
			taken = r.Seq
			return r.Content
		}
	}
}

// serveApp starts wecodex serve with the self-built app on a qyapi fake,
// and returns the fake and alice's callbacks.
func serveApp(t *testing.T, e *e2e) (*botProc, *wecomtest.AppAPI, *wecomtest.AppCallbacks) {
	t.Helper()
	api := wecomtest.NewAppAPI(wecomtest.AppAPIOptions{CorpID: e2eCorp, Secret: e2eAppSecret, AgentID: e2eAgent})
	t.Cleanup(api.Close)
	b := serveWithEnv(t, appConfig(t, e, api), e.serveEnv(), e.urls)
	cb, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{URL: b.base + "/wecom/app", CorpID: e2eCorp, AgentID: e2eAgent,
		Token: e2eToken, EncodingAESKey: e2eAESKey})
	if err != nil {
		t.Fatal(err)
	}
	return b, api, cb
}
