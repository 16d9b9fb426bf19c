package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// Config is what the engine needs from the configuration file.
type Config struct {
	// Replica names this process among the replicas sharing the store; it
	// must be unique per process. Empty means hostname-pid-random.
	Replica string
	// WorkspaceRoot is agent.workspace_root: each conversation works in its
	// own directory below it.
	WorkspaceRoot string
	// TurnTimeout is agent.turn_timeout: a turn running longer is cancelled
	// and its card says it failed.
	TurnTimeout time.Duration
	// StreamWindow is wecom.aibot.stream_window: how long after the user's
	// message the platform still shows stream frames. A turn outliving it
	// finishes the stream with a note and delivers the rest through the
	// Deliverer.
	StreamWindow time.Duration
	// UpdateInterval is cards.update_interval: frames are coalesced to at
	// most one per interval.
	UpdateInterval time.Duration
	// ProgressStyle is cards.progress_style ("think" or "quote"); empty
	// means think.
	ProgressStyle string
	// Access says who may drive the agent.
	Access Access
	// LeaseTTL bounds how long a dead replica blocks a conversation; the
	// lease is renewed every LeaseTTL/3 while a turn runs. Default 30s.
	LeaseTTL time.Duration
	// HeartbeatTTL bounds how long a dead replica keeps the affinity of the
	// conversations it owns; it is renewed every HeartbeatTTL/3. Default 30s.
	HeartbeatTTL time.Duration
	// PollInterval is how often the engine looks for conversations with
	// waiting messages that it may take (its own, or a dead replica's).
	// Default 1s.
	PollInterval time.Duration
	// MaxQueue is how many messages may wait per conversation; more are
	// refused. Default 5.
	MaxQueue int
	// Logger receives the engine's log lines; nil means slog.Default().
	Logger *slog.Logger
}

func (c *Config) setDefaults() error {
	if c.Replica == "" {
		host, _ := os.Hostname()
		c.Replica = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), randomID(3))
	}
	if c.WorkspaceRoot == "" {
		return errors.New("bot config: agent.workspace_root is empty")
	}
	if c.TurnTimeout <= 0 {
		c.TurnTimeout = 30 * time.Minute
	}
	if c.StreamWindow <= 0 {
		c.StreamWindow = 5*time.Minute + 30*time.Second
	}
	if c.UpdateInterval <= 0 {
		c.UpdateInterval = 500 * time.Millisecond
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 30 * time.Second
	}
	if c.HeartbeatTTL <= 0 {
		c.HeartbeatTTL = 30 * time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = 5
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Engine runs conversations: it receives messages, answers commands, and
// runs one agent turn at a time per conversation across every replica that
// shares its Store.
type Engine struct {
	cfg     Config
	store   Store
	agent   acpbridge.Agent
	deliver Deliverer
	log     *slog.Logger
	wakeups chan string
	hooks   testHooks

	mu       sync.Mutex
	runCtx   context.Context            // set while Run runs
	wg       sync.WaitGroup             // workers started by Run
	workers  map[string]*worker         // conversation → worker on this replica
	running  map[acp.SessionId]cardSink // session → sink of its running turn
	sessions map[acp.SessionId]struct{} // sessions this process created or loaded
}

// New returns an engine; call Run to let it start turns.
func New(cfg Config, st Store, agent acpbridge.Agent, d Deliverer) (*Engine, error) {
	if st == nil || agent == nil || d == nil {
		return nil, errors.New("bot: New needs a store, an agent and a deliverer")
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if cfg.Access.Closed() {
		cfg.Logger.Warn("access lists are empty: nobody may use the bot until access.allow_users, access.allow_chats or access.admins names someone")
	}
	return &Engine{
		cfg:      cfg,
		store:    st,
		agent:    agent,
		deliver:  d,
		log:      cfg.Logger.With("replica", cfg.Replica),
		wakeups:  make(chan string, 256),
		workers:  make(map[string]*worker),
		running:  make(map[acp.SessionId]cardSink),
		sessions: make(map[acp.SessionId]struct{}),
	}, nil
}

// Replica returns this engine's replica id.
func (e *Engine) Replica() string { return e.cfg.Replica }

// Sink returns the sink of the turn running in session id on this replica,
// so a permission hook can report its decision on that turn's card. ok is
// false when no turn of the session runs here. The sink never blocks.
func (e *Engine) Sink(id acp.SessionId) (acpbridge.Sink, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.running[id]
	if !ok {
		return nil, false
	}
	return s, true
}

// Run starts turns until ctx ends: it takes conversations with waiting
// messages (woken by Receive, or found by a poll), keeps this replica's
// heartbeat and listens for /stop requests from other replicas. When ctx
// ends, running turns are cancelled, their cards say so, their leases are
// released, and Run returns once every turn has finished.
func (e *Engine) Run(ctx context.Context) error {
	e.mu.Lock()
	if e.runCtx != nil {
		e.mu.Unlock()
		return errors.New("bot: engine is already running")
	}
	e.runCtx = ctx
	e.mu.Unlock()
	defer e.retire()

	e.heartbeat(ctx)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		e.watchStops(watchCtx)
	}()
	defer func() { stopWatch(); <-watchDone }()

	poll := time.NewTicker(e.cfg.PollInterval)
	defer poll.Stop()
	beat := time.NewTicker(e.cfg.HeartbeatTTL / 3)
	defer beat.Stop()
	e.pollPending(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case conv := <-e.wakeups:
			e.tryStart(ctx, conv)
		case <-poll.C:
			e.pollPending(ctx)
		case <-beat.C:
			e.heartbeat(ctx)
		}
	}
}

// retire waits for this replica's turns to end, then drops its heartbeat so
// other replicas take its conversations without waiting for it to expire.
func (e *Engine) retire() {
	e.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.store.Heartbeat(ctx, e.cfg.Replica, 0); err != nil {
		e.log.Warn("drop heartbeat", "err", err)
	}
	e.mu.Lock()
	e.runCtx = nil
	e.mu.Unlock()
}

func (e *Engine) heartbeat(ctx context.Context) {
	if err := e.store.Heartbeat(ctx, e.cfg.Replica, e.cfg.HeartbeatTTL); err != nil && ctx.Err() == nil {
		e.log.Warn("heartbeat", "err", err)
	}
}

func (e *Engine) watchStops(ctx context.Context) {
	for ctx.Err() == nil {
		err := e.store.WatchStops(ctx, func() {}, func(conv string) { e.checkStop(conv) })
		if ctx.Err() != nil {
			return
		}
		e.log.Warn("watch stop requests; retrying", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// wake asks Run to try starting conv now; when Run is busy the poll finds it.
func (e *Engine) wake(conv string) {
	select {
	case e.wakeups <- conv:
	default:
	}
}

func (e *Engine) pollPending(ctx context.Context) {
	convs, err := e.store.Pending(ctx, 100)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("list pending conversations", "err", err)
		}
		return
	}
	for _, conv := range convs {
		if ctx.Err() != nil {
			return
		}
		e.tryStart(ctx, conv)
	}
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
