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

// DefaultURL is WeCom's long-connection endpoint (wecom.aibot.ws_url).
const DefaultURL = "wss://openws.work.weixin.qq.com"

// ErrBadCredentials: WeCom refused the bot_id or secret (853000). Retrying
// cannot help until an admin fixes the config.
var ErrBadCredentials = errors.New("wecom refused wecom.aibot.bot_id or wecom.aibot.secret (errcode 853000): " +
	"copy both again from the bot's API mode → long connection page in the WeCom admin console")

// ErrKicked: another connection subscribed as this bot and WeCom closed
// ours (disconnected_event). Reconnecting would kick that one in turn.
var ErrKicked = errors.New("another connection subscribed as this bot (disconnected_event): " +
	"look for another wecodex deployment or an SDK process using the same bot_id; not reconnecting")

// Options configure a Client. Zero durations take WeCom's defaults.
type Options struct {
	URL    string // DefaultURL when empty
	BotID  string
	Secret string
	// Heartbeat is the app-level ping interval (30 s); two unanswered pings
	// mean the connection is dead.
	Heartbeat time.Duration
	// AckTimeout is how long a request waits for its ack (5 s).
	AckTimeout time.Duration
	// BackoffMin and BackoffMax bound the reconnect delay (1 s → 30 s),
	// doubled per failed attempt and reset by a successful subscribe.
	BackoffMin, BackoffMax time.Duration
	// OnCallback gets every callback WeCom pushes, one at a time in arrival
	// order, on a goroutine of its own (acks keep flowing meanwhile).
	OnCallback func(ctx context.Context, f Frame)
	// OnState, when set, is told every state change (for /readyz, metrics
	// and tests).
	OnState func(State)
	Log     *slog.Logger
}

// State is where the connection stands.
type State struct {
	Subscribed bool
	Attempt    int           // failed connection attempts since the last subscribe
	Retry      time.Duration // the delay before the next attempt, when retrying
	Err        error         // the last failure; ErrBadCredentials or ErrKicked once stopped
	Stopped    bool          // no further attempts will be made
}

// Client keeps one subscribed long connection to WeCom.
type Client struct {
	o Options

	mu      sync.Mutex
	state   State
	cur     *session      // the subscribed session, nil between connections
	changed chan struct{} // closed and replaced when cur changes
}

// NewClient checks o and fills in its defaults.
func NewClient(o Options) (*Client, error) {
	if o.BotID == "" || o.Secret == "" {
		return nil, errors.New("long connection: wecom.aibot.bot_id and wecom.aibot.secret are required")
	}
	if o.URL == "" {
		o.URL = DefaultURL
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Heartbeat, 30*time.Second)
	def(&o.AckTimeout, 5*time.Second)
	def(&o.BackoffMin, time.Second)
	def(&o.BackoffMax, 30*time.Second)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.OnCallback == nil {
		o.OnCallback = func(context.Context, Frame) {}
	}
	return &Client{o: o, changed: make(chan struct{})}, nil
}

// State is the connection's state now.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Backoff is the delay before reconnect attempt n (1-based).
func Backoff(n int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(d, hi)
}

// Run connects, subscribes and keeps the connection until ctx ends (nil) or
// WeCom makes retrying pointless (ErrBadCredentials, ErrKicked).
func (c *Client) Run(ctx context.Context) error {
	attempt := 0
	for {
		err := c.connectOnce(ctx, &attempt)
		if ctx.Err() != nil {
			c.setState(func(s *State) { *s = State{Stopped: true} })
			return nil
		}
		if errors.Is(err, ErrBadCredentials) || errors.Is(err, ErrKicked) {
			// The state first: whoever reads the log line (an admin, a
			// test) must find /readyz saying the same.
			c.setState(func(s *State) { *s = State{Stopped: true, Err: err} })
			c.o.Log.Error("wecom long connection stopped", "bot_id", c.o.BotID, "err", err)
			return err
		}
		attempt++
		delay := Backoff(attempt, c.o.BackoffMin, c.o.BackoffMax)
		c.setState(func(s *State) { *s = State{Attempt: attempt, Retry: delay, Err: err} })
		c.o.Log.Warn("wecom long connection lost; reconnecting", "attempt", attempt, "in", delay, "err", err)
		select {
		case <-ctx.Done():
			c.setState(func(s *State) { *s = State{Stopped: true} })
			return nil
		case <-time.After(delay):
		}
	}
}

// connectOnce runs one connection from dial to its end. A successful
// subscribe resets *attempt.
func (c *Client) connectOnce(ctx context.Context, attempt *int) error {
	pushes := make(chan Frame, 64)
	kicked := make(chan struct{})
	var once sync.Once
	s, err := dialSession(ctx, c.o.URL, c.o.AckTimeout, func(f Frame) {
		if f.Cmd == CmdEventCallback && eventType(f.Body) == "disconnected_event" {
			once.Do(func() { close(kicked) })
			return
		}
		select {
		case pushes <- f:
		case <-kicked:
		}
	})
	if err != nil {
		return err
	}
	defer s.close()
	body := map[string]string{"bot_id": c.o.BotID, "secret": c.o.Secret}
	if _, err := s.request(ctx, CmdSubscribe, NewReqID(CmdSubscribe), body); err != nil {
		if Code(err) == CodeBadCredentials {
			return ErrBadCredentials
		}
		return fmt.Errorf("subscribe: %w", err)
	}
	*attempt = 0
	c.o.Log.Info("wecom long connection subscribed", "bot_id", c.o.BotID)
	c.setCurrent(s)
	defer c.setCurrent(nil)

	live, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); c.dispatch(live, pushes) }()
	err = c.heartbeat(live, s, kicked)
	stop()
	wg.Wait()
	return err
}

// dispatch hands callbacks to OnCallback in order until ctx ends.
func (c *Client) dispatch(ctx context.Context, pushes <-chan Frame) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-pushes:
			c.o.OnCallback(ctx, f)
		}
	}
}

// heartbeat pings every Heartbeat and declares the connection dead when two
// pings in a row went unanswered at the next tick, as the SDK does.
func (c *Client) heartbeat(ctx context.Context, s *session, kicked <-chan struct{}) error {
	t := time.NewTicker(c.o.Heartbeat)
	defer t.Stop()
	var mu sync.Mutex
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-kicked:
			return ErrKicked
		case <-s.done:
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.err
		case <-t.C:
		}
		mu.Lock()
		dead := missed >= 2
		missed++
		mu.Unlock()
		if dead {
			return errors.New("heartbeat: two pings unanswered")
		}
		go func() {
			if _, err := s.request(ctx, CmdPing, NewReqID(CmdPing), nil); err == nil {
				mu.Lock()
				missed = 0
				mu.Unlock()
			}
		}()
	}
}

// Request sends cmd on the subscribed connection and waits for its ack,
// waiting first (until ctx ends) for a connection to be subscribed. A
// request that could not be written is sent again on the next connection;
// one that ctx ended before it was written fails with ErrNotSent.
func (c *Client) Request(ctx context.Context, cmd, reqID string, body any) (Frame, error) {
	for {
		c.mu.Lock()
		s, changed := c.cur, c.changed
		c.mu.Unlock()
		if s != nil {
			f, err := s.request(ctx, cmd, reqID, body)
			if !errors.Is(err, ErrNotSent) {
				return f, err
			}
			// A failed write ends the connection (coder/websocket closes
			// it); wait for the next one.
			select {
			case <-ctx.Done():
				return Frame{}, fmt.Errorf("%s: wait for the long connection: %w: %w", cmd, ErrNotSent, ctx.Err())
			case <-changed:
			}
			continue
		}
		select {
		case <-ctx.Done():
			return Frame{}, fmt.Errorf("%s: wait for the long connection: %w: %w", cmd, ErrNotSent, ctx.Err())
		case <-changed:
		}
	}
}

func (c *Client) setCurrent(s *session) {
	c.mu.Lock()
	c.cur = s
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	c.setState(func(st *State) { *st = State{Subscribed: s != nil} })
}

func (c *Client) setState(f func(*State)) {
	c.mu.Lock()
	f(&c.state)
	st := c.state
	c.mu.Unlock()
	if c.o.OnState != nil {
		c.o.OnState(st)
	}
}

func eventType(body json.RawMessage) string {
	var b struct {
		Event struct {
			EventType string `json:"eventtype"`
		} `json:"event"`
	}
	_ = json.Unmarshal(body, &b)
	return b.Event.EventType
}
