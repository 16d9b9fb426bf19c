package playground

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Stream replies and continuations as the long connection names them.
const (
	cmdRespond = "aibot_respond_msg"
	cmdSendMsg = "aibot_send_msg"
	cmdUpdate  = "aibot_respond_update_msg"
)

// longConn plays WeCom's long-connection server: the bot dials it, a typed
// message is pushed as aibot_msg_callback, and the frames the bot pushes
// back on the callback's req_id (and any aibot_send_msg continuation) go on
// the board.
type longConn struct {
	srv     *wecomtest.LongConnServer
	cleanup []func()

	mu     sync.Mutex
	byReq  map[string]string // callback req_id → msgid
	last   string            // the latest msgid: continuations name only the chat
	cardOf map[string]string // a sent card's task_id → the msgid it shows on
	clicks map[string]string // a click's req_id → the clicked card's task_id
}

func newLongConn(botID, secret string) *longConn {
	lc := &longConn{byReq: map[string]string{}, cardOf: map[string]string{}, clicks: map[string]string{}}
	lc.srv = wecomtest.NewLongConnServer(lc, wecomtest.LongConnOptions{BotID: botID, Secret: secret})
	return lc
}

// Cleanup collects what NewLongConnServer stops at the end (it is written
// for tests).
func (lc *longConn) Cleanup(f func()) { lc.cleanup = append(lc.cleanup, f) }

func (lc *longConn) close() {
	for i := len(lc.cleanup) - 1; i >= 0; i-- {
		lc.cleanup[i]()
	}
}

// connectWait is how long a message typed before the bot subscribed (just
// after start, or while it reconnects) waits for it.
const connectWait = 15 * time.Second

// push sends a typed message to the connected bot, waiting a little for it
// to subscribe.
func (lc *longConn) push(ctx context.Context, m wecomtest.LongConnMessage) error {
	wait, cancel := context.WithTimeout(ctx, connectWait)
	defer cancel()
	if _, err := lc.srv.Wait(wait, func(wecomtest.Record) bool { return lc.srv.Subscribed() != 0 }); err != nil {
		return errors.New("wecodex has not connected to the playground's long-connection server (wecom.aibot.mode longconn); see its log")
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	reqID, err := lc.srv.PushMessage(m)
	if err != nil {
		return fmt.Errorf("push aibot_msg_callback: %w", err)
	}
	lc.byReq[reqID], lc.last = m.MsgID, m.MsgID
	return nil
}

// follow puts every accepted frame and continuation on b until ctx ends.
func (lc *longConn) follow(ctx context.Context, b *board) {
	seen := 0
	for {
		r, err := lc.srv.WaitFrom(ctx, seen, func(r wecomtest.Record) bool {
			return r.Kind == wecomtest.KindRequest && r.Errcode == 0 && (r.Cmd == cmdRespond || r.Cmd == cmdSendMsg || r.Cmd == cmdUpdate)
		})
		if err != nil {
			return
		}
		seen = r.Seq
		lc.mu.Lock()
		id, ok := lc.byReq[r.ReqID]
		last := lc.last
		lc.mu.Unlock()
		switch {
		case r.Cmd == cmdRespond && ok:
			s := r.Stream()
			b.frame(id, s.Content, s.Finish)
		case r.Cmd == cmdUpdate:
			if c, ok := templateCardOf(r.Body); ok {
				lc.replaceCard(b, r.ReqID, c)
			}
		case r.Cmd == cmdSendMsg && last != "" && r.MsgType() == "template_card":
			if c, ok := templateCardOf(r.Body); ok {
				lc.showCard(b, last, c)
			}
		case r.Cmd == cmdSendMsg && last != "":
			md := r.Markdown()
			b.update(last, func(a *answer) { a.posts = append(a.posts, md) })
		}
	}
}
