package main

import (
	"context"
	"testing"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// chatChannel is alice's 1:1 chat with a running wecodex on one WeCom
// channel: say sends a command and returns its answer as WeCom received
// it; turn sends a message and returns its turn's end as WeCom received
// it (the final frame, or the answer message).
type chatChannel struct {
	conv string
	say  func(t *testing.T, ctx context.Context, text string) string
	turn func(t *testing.T, ctx context.Context, text string) string
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
			s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: text})
			if err != nil {
				t.Fatal(err)
			}
			last, _ := follow(t, ctx, b.sim, s.ID)
			return last.Content
		},
	}
}

// longConnChat is alice's chat through the long connection: either
// answer is the final frame of the stream on the message's req_id.
func longConnChat(srv *wecomtest.LongConnServer) chatChannel {
	final := func(t *testing.T, ctx context.Context, text string) string {
		reqID := push(t, srv, "alice", text)
		return waitRecord(t, ctx, srv, 0, text+"'s final frame", func(r wecomtest.Record) bool {
			return r.Kind == wecomtest.KindRequest && r.ReqID == reqID && r.Stream().Finish
		}).Stream().Content
	}
	return chatChannel{conv: "single:alice", say: final, turn: final}
}

// appChat is alice's chat with the self-built app: either answer is the
// first markdown message qyapi's message/send delivered to her after the
// callback.
func appChat(api *wecomtest.AppAPI, cb *wecomtest.AppCallbacks) chatChannel {
	next := func(t *testing.T, ctx context.Context, text string) string {
		t.Helper()
		after := len(api.Records())
		if rep, err := cb.Send(ctx, wecomtest.AppText("alice", text)); err != nil || rep.Status != 200 {
			t.Fatalf("%s: callback %d %v", text, rep.Status, err)
		}
		r, err := api.Wait(ctx, func(r wecomtest.AppRecord) bool {
			return r.Seq > after && r.API == "message/send" && r.ToUser == "alice" && r.MsgType == "markdown" && r.Errcode == 0
		})
		if err != nil {
			t.Fatalf("%s: no markdown message delivered: %v", text, err)
		}
		return r.Content
	}
	return chatChannel{conv: "app:alice", say: next, turn: next}
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
