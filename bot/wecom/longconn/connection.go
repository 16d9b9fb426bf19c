package longconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// FrameStore keeps the newest frame of every running stream in Redis, so the
// holder can push frames rendered on any replica and a new holder re-push
// them (store.LongConn implements it).
type FrameStore interface {
	PutStreamFrame(ctx context.Context, botID, reqID string, seq int64, frame []byte) (stored bool, err error)
	StreamFrame(ctx context.Context, botID, reqID string) ([]byte, error)
	RunningStreams(ctx context.Context, botID string) (map[string][]byte, error)
	EndStream(ctx context.Context, botID, reqID string, token int64) (bool, error)
	ReopenStream(ctx context.Context, botID, reqID string, token int64) (bool, error)
}

// Store is what a Connection needs of Redis.
type Store interface {
	LeaseStore
	FrameStore
	SendStore
	// WatchRelay hands the holder each frame's req_id and each send's id
	// as another replica announces it; ready is called once it listens.
	WatchRelay(ctx context.Context, botID string, ready func(), onFrame, onSend func(id string)) error
}

// Config configures a Connection.
type Config struct {
	Client  Options // URL, BotID, Secret, timings, OnCallback
	Replica string  // this replica's id, recorded in the holder lease
	Store   Store
	// HolderTTL and RenewEvery time the holder lease (store.HolderTTL and
	// store.HolderRenewEvery in production; shorter in tests).
	HolderTTL, RenewEvery time.Duration
	// Welcome answers enter_chat with aibot_respond_welcome_msg; "" = none.
	Welcome string
	Log     *slog.Logger
}

// Connection is the bot's long connection across replicas: it holds the
// WeCom connection while this replica holds the lease, and presents frames
// from any replica.
type Connection struct {
	cfg    Config
	holder *Holder

	mu       sync.Mutex
	client   *Client // the connection while holding, else nil
	local    *Pusher // its pusher, else nil
	finished recent  // req_ids this replica presented a final frame for
	sending  sync.WaitGroup
	order    chatOrder // each chat's sends in the order they were made
}

// recent is a bounded set of the latest req_ids added.
type recent struct {
	set   map[string]bool
	order []string
}

func (r *recent) add(id string) {
	if r.set == nil {
		r.set = map[string]bool{}
	}
	r.set[id] = true
	r.order = append(r.order, id)
	if len(r.order) > maxEnded {
		delete(r.set, r.order[0])
		r.order = r.order[1:]
	}
}

// New checks cfg and builds the Connection; Run starts it.
func New(cfg Config) (*Connection, error) {
	if cfg.Store == nil || cfg.Replica == "" {
		return nil, errors.New("long connection: a store and a replica id are required")
	}
	if _, err := NewClient(cfg.Client); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	c := &Connection{cfg: cfg}
	c.holder = &Holder{Store: cfg.Store, BotID: cfg.Client.BotID, Replica: cfg.Replica,
		TTL: cfg.HolderTTL, RenewEvery: cfg.RenewEvery, Hold: c.hold, Log: cfg.Log}
	return c, nil
}

// Run stands by for and holds the bot's connection until ctx ends.
func (c *Connection) Run(ctx context.Context) error { return c.holder.Run(ctx) }

// Present makes s the newest frame of its stream: stored in Redis for the
// holder (announced there), and handed straight to the pusher when this
// replica is the holder. shown is false when s came too late: its stream
// has a newer frame (by Seq, from any replica) or has ended.
//
// Once a stream's final frame was presented, later ones are dropped: the
// stream is over (a publisher may emit its last frame twice).
func (c *Connection) Present(ctx context.Context, s Snapshot) (shown bool, err error) {
	c.mu.Lock()
	over := c.finished.set[s.ReqID]
	c.mu.Unlock()
	if over {
		return false, nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return false, fmt.Errorf("encode frame: %w", err)
	}
	stored, err := c.cfg.Store.PutStreamFrame(ctx, c.cfg.Client.BotID, s.ReqID, s.Seq, data)
	if err != nil || !stored {
		return false, err
	}
	c.mu.Lock()
	if s.Finish {
		c.finished.add(s.ReqID)
	}
	p := c.local
	c.mu.Unlock()
	if p != nil {
		p.Offer(s)
	}
	return true, nil
}

// Request sends cmd on the connection when this replica holds it.
func (c *Connection) Request(ctx context.Context, cmd, reqID string, body any) (Frame, error) {
	c.mu.Lock()
	cl := c.client
	c.mu.Unlock()
	if cl == nil {
		return Frame{}, fmt.Errorf("%s: this replica does not hold the long connection", cmd)
	}
	return cl.Request(ctx, cmd, reqID, body)
}

// Status says, in words for /readyz, where the connection stands.
func (c *Connection) Status() (ready bool, status string) {
	token, stopped := c.holder.State()
	c.mu.Lock()
	cl := c.client
	c.mu.Unlock()
	switch {
	case stopped != nil:
		return false, "stopped: " + stopped.Error()
	case token == 0 || cl == nil:
		return true, "standby: another replica holds the bot's long connection"
	}
	st := cl.State()
	switch {
	case st.Subscribed:
		return true, "connected: this replica holds the bot's long connection"
	case st.Stopped && st.Err != nil:
		return false, "stopped: " + st.Err.Error()
	case st.Err != nil:
		return false, fmt.Sprintf("reconnecting (attempt %d, next in %s): %v", st.Attempt, st.Retry, st.Err)
	}
	return false, "connecting to WeCom"
}

// hold runs the connection while this replica holds the lease with token.
func (c *Connection) hold(ctx context.Context, token int64) error {
	o := c.cfg.Client
	onCallback := o.OnCallback
	cl, err := NewClient(o)
	if err != nil {
		return err
	}
	cl.o.OnCallback = func(ctx context.Context, f Frame) { c.callback(ctx, cl, f, onCallback) }
	p := NewPusher(ctx, cl, c.cfg.Log, PushHooks{
		Claim:   func(s Snapshot) bool { return c.claimFinal(ctx, token, s) },
		Unclaim: func(s Snapshot) { c.unclaimFinal(ctx, token, s) },
	})
	c.mu.Lock()
	c.client, c.local = cl, p
	c.mu.Unlock()
	var wg sync.WaitGroup
	wctx, stopWatch := context.WithCancel(ctx)
	wg.Add(1)
	go func() { defer wg.Done(); c.relay(wctx, p, cl, token) }()
	// An error means stopped for good; the Holder then keeps the lease.
	err = cl.Run(ctx)
	stopWatch()
	wg.Wait()
	p.Wait()
	c.sending.Wait()
	c.mu.Lock()
	c.client, c.local = nil, nil
	c.mu.Unlock()
	return err
}

// claimFinal records s's stream as ended before its final frame goes out,
// so that no holder pushes it again: a holder that dies after writing it
// cannot tell whether WeCom showed it, and a final frame is sent at most
// once (one that dies between this record and the write leaves the card
// at its last frame). False means this replica no longer holds the lease:
// the new holder finds the stream running and pushes the final frame. When
// Redis cannot say, the frame goes out anyway: a successor needs Redis to
// take over, so the user is not left without the end of the answer.
func (c *Connection) claimFinal(ctx context.Context, token int64, s Snapshot) bool {
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.RenewEvery)
	defer cancel()
	held, err := c.cfg.Store.EndStream(ectx, c.cfg.Client.BotID, s.ReqID, token)
	switch {
	case err != nil:
		c.cfg.Log.Warn("long connection: cannot record a stream's end in Redis; pushing its final frame anyway", "req_id", s.ReqID, "err", err)
		return true
	case !held:
		c.cfg.Log.Info("long connection: lost the lease before a final frame; the new holder pushes it", "req_id", s.ReqID)
	}
	return held
}

// unclaimFinal reopens s's stream, whose claimed final frame was never
// written because this holder is stopping: the next holder finds it running
// and pushes it.
func (c *Connection) unclaimFinal(ctx context.Context, token int64, s Snapshot) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.RenewEvery)
	defer cancel()
	if _, err := c.cfg.Store.ReopenStream(rctx, c.cfg.Client.BotID, s.ReqID, token); err != nil {
		c.cfg.Log.Warn("long connection: cannot give back an unsent final frame; that card stays unfinished", "req_id", s.ReqID, "err", err)
	}
}

// relay feeds the pusher the frames other replicas announce, after pushing
// the newest frame of every running stream (this holder may be new), and
// sends the sends they announce, after those still waiting.
func (c *Connection) relay(ctx context.Context, p *Pusher, cl *Client, token int64) {
	botID := c.cfg.Client.BotID
	offer := func(data []byte) {
		var s Snapshot
		if err := json.Unmarshal(data, &s); err != nil {
			c.cfg.Log.Warn("long connection: undecodable frame in Redis", "err", err)
			return
		}
		p.Offer(s)
	}
	sweep := func() {
		running, err := c.cfg.Store.RunningStreams(ctx, botID)
		if err != nil {
			c.cfg.Log.Warn("long connection: cannot list running streams", "err", err)
		}
		for _, data := range running {
			offer(data)
		}
		c.sendWaiting(ctx, cl, token)
	}
	// Pub/sub loses what is announced while its connection is re-dialled
	// (go-redis resubscribes silently): a lost final frame would leave a
	// card unfinished and a lost send an approval card unsent. So the holder
	// also sweeps every RenewEvery; the pusher skips frames it already has,
	// and a send is taken once.
	swept := make(chan struct{})
	defer func() { <-swept }()
	go func() {
		defer close(swept)
		t := time.NewTicker(c.cfg.RenewEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				sweep()
			}
		}
	}()
	for ctx.Err() == nil {
		err := c.cfg.Store.WatchRelay(ctx, botID, sweep, func(reqID string) {
			data, err := c.cfg.Store.StreamFrame(ctx, botID, reqID)
			if err != nil || data == nil {
				return
			}
			offer(data)
		}, func(id string) {
			if body := c.claim(ctx, token, id); body != nil {
				c.order.do(chatOf(body), &c.sending, func() { _ = c.send(ctx, cl, id, body) })
			}
		})
		if err != nil && ctx.Err() == nil {
			c.cfg.Log.Warn("long connection: frame relay lost; resubscribing", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(c.cfg.RenewEvery):
			}
		}
	}
}

// callback answers what the channel answers itself (a welcome) and hands
// the rest on.
func (c *Connection) callback(ctx context.Context, cl *Client, f Frame, next func(context.Context, Frame)) {
	if f.Cmd == CmdEventCallback && eventType(f.Body) == "enter_chat" && c.cfg.Welcome != "" {
		body := map[string]any{"msgtype": "text", "text": map[string]string{"content": c.cfg.Welcome}}
		if _, err := cl.Request(ctx, CmdWelcome, f.Headers.ReqID, body); err != nil {
			c.cfg.Log.Warn("long connection: welcome not sent", "err", err)
		}
		return
	}
	if next != nil {
		next(ctx, f)
	}
}
