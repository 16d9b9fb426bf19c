package codex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/childenv"
)

// Options configure an Agent. The zero value runs `codex` from PATH with
// Codex's own defaults and keeps phases in memory only.
type Options struct {
	// Bin is the codex executable ("codex" when empty).
	Bin string
	// Config holds `-c key=value` overrides; values are written as TOML
	// (a bare word becomes a quoted string).
	Config map[string]string
	// Env is added to the app-server's environment (for example
	// CODEX_HOME=...). That environment is otherwise the allow-listed part
	// of this process's (internal/childenv), unless InheritEnv.
	Env []string
	// InheritEnv starts the app-server with this process's whole
	// environment, as `codex` run by hand would have it: for `wecodex
	// codex-acp`, whose one user is the operator who runs it. The bot never
	// sets it: what its users' commands could read must not include
	// wecodex's secrets.
	InheritEnv bool
	// Sandbox ("read-only", "workspace-write", "danger-full-access") and
	// ApprovalPolicy ("on-request", "never", ...) are sent with every thread
	// start and resume; empty leaves Codex's configuration in charge.
	// Sandbox is ignored when Confine is set.
	Sandbox, ApprovalPolicy string
	// Confine, when set, gives each thread its own permission profile from
	// the thread's working directory (see Confinement), sent with every
	// thread start and resume in place of Sandbox.
	Confine func(cwd string) Confinement
	// Thread, when set, gives each thread its ThreadSettings from its
	// working directory, sent with every thread start and resume.
	Thread func(cwd string) ThreadSettings
	// Phases is the shared phase store (Redis); nil keeps phases in memory.
	// Either way an in-process cache sits in front of it.
	Phases acpbridge.PhaseStore
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger
	// WatchdogInterval and WatchdogTimeout tune the hang watchdog: while a
	// turn runs, the app-server must answer a cheap request every
	// WatchdogInterval within WatchdogTimeout or it is killed and restarted.
	// 0 means the defaults (5 s, 10 s).
	WatchdogInterval, WatchdogTimeout time.Duration
	// IdleUnload is how long a thread stays loaded in the app-server after
	// its last turn; it is then unloaded (its files closed, its memory
	// freed) and resumed when its conversation speaks again. 0 means
	// DefaultIdleUnload; negative keeps threads loaded.
	IdleUnload time.Duration
	// OnRestart, when set, is called each time the app-server is started
	// again after its first start (it died or the watchdog killed it), for
	// metrics; it must not block.
	OnRestart func()
	// MaxReconnects is how many times a turn may see Codex retry a model
	// request that never reached the provider before the turn fails as
	// provider-unreachable; 0 means defaultMaxReconnects.
	MaxReconnects int
	// FailInterrupted fails a turn the app-server's hang or death cut off
	// after it began, with one line asking for the message again, instead
	// of resuming its thread on the new app-server and continuing it in one
	// more turn (recovery.go). Requests that had not taken effect are sent
	// again either way.
	FailInterrupted bool
	// SnapshotDir, when set, is where each thread's workspace is
	// snapshotted before every prompt's turn, so Undo can put the files
	// back (snapshot.go); empty takes none, and Undo rewinds the history
	// only.
	SnapshotDir string
}

// Agent is an acpbridge.Agent backed by one `codex app-server` process,
// started on first use and restarted (resuming threads) after it dies or
// hangs; what the dead one had not acted on is sent again, and a turn it cut
// off carries on in the new one (recovery.go).
type Agent struct {
	opts   Options
	bin    string // what runs: the native binary when opts.Bin is the npm launcher
	pkg    string // the launcher's package root when bin is its native binary
	log    *slog.Logger
	cache  *acpbridge.PhaseCache
	phases acpbridge.PhaseStore // cache, as its translators see it

	ctx    context.Context // the agent's lifetime
	cancel context.CancelFunc

	startMu sync.Mutex   // serializes process starts
	busy    atomic.Int64 // Prompts in progress: the watchdog watches while > 0

	mu       sync.Mutex
	conn     *conn
	gen      int // incremented per process start
	closed   bool
	threads  map[string]*thread
	closing  map[string]chan struct{} // threads whose thread/closed someone waits for (threads.go)
	warnings []string                 // distinct environment warnings, for Warnings
}

// thread is one Codex thread, i.e. one ACP session.
type thread struct {
	id  string
	tr  *translator // owned by the read loop
	sem chan struct{}

	turn atomic.Pointer[turnState] // the running turn, nil when idle

	// guarded by Agent.mu
	cwd  string
	gen  int            // process generation the thread is loaded in (0: not loaded)
	mode acpbridge.Mode // the mode a confined thread's profile is loaded in (mode.go)
	idle *time.Timer    // unloads the thread once it has been idle for IdleUnload
}

var (
	_ acpbridge.Agent       = (*Agent)(nil)
	_ acpbridge.ModeStarter = (*Agent)(nil)
)

// New returns an Agent; the app-server starts on the first call that needs it.
func New(opts Options) *Agent {
	if opts.Bin == "" {
		opts.Bin = "codex"
	}
	opts.Config = withUnloadDelay(opts.Config)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bin := opts.Bin
	native, pkg, ok := nativeCodex(opts.Bin)
	if ok {
		bin = native
		log.Info("running the native codex binary behind the npm launcher", "bin", native)
	}
	cache := acpbridge.NewPhaseCache(opts.Phases)
	return &Agent{
		opts:    opts,
		bin:     bin,
		pkg:     pkg,
		log:     log,
		cache:   cache,
		phases:  cache,
		ctx:     ctx,
		cancel:  cancel,
		threads: make(map[string]*thread),
		closing: make(map[string]chan struct{}),
	}
}

var errClosed = errors.New("codex agent closed")

// env is the app-server's whole environment: the allow-listed part of this
// process's (all of it with InheritEnv), as the npm launcher would pass it
// on when its native binary runs directly, plus Options.Env.
func (a *Agent) env() []string {
	base := os.Environ()
	if !a.opts.InheritEnv {
		base = childenv.Inherit(a.log, "codex app-server")
	}
	if a.pkg != "" {
		base = launcherEnv(base, a.pkg)
	}
	return append(base, a.opts.Env...)
}

// ensureConn returns the running app-server, starting one if there is none
// or the last one exited.
func (a *Agent) ensureConn(ctx context.Context) (*conn, int, error) {
	a.startMu.Lock()
	defer a.startMu.Unlock()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, 0, errClosed
	}
	c, gen := a.conn, a.gen
	a.mu.Unlock()
	if c != nil && c.exited() == nil {
		return c, gen, nil
	}
	c, err := startConn(ctx, a.bin, a.opts.Config, a.env(), a, a.log)
	if err != nil {
		return nil, 0, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		go c.kill()
		return nil, 0, errClosed
	}
	a.gen++
	a.conn, gen = c, a.gen
	if gen > 1 && a.opts.OnRestart != nil {
		a.opts.OnRestart()
	}
	go c.watch(orDefault(a.opts.WatchdogInterval, defaultWatchInterval),
		orDefault(a.opts.WatchdogTimeout, defaultWatchTimeout),
		func() bool { return a.busy.Load() > 0 })
	return c, gen, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// threadFor returns the thread of a session, registering it if this Agent has
// not seen it (a session created by an earlier process).
func (a *Agent) threadFor(id string) *thread {
	a.mu.Lock()
	defer a.mu.Unlock()
	th := a.threads[id]
	if th == nil {
		th = &thread{
			id:  id,
			tr:  newTranslator(a.ctx, id, a.phases, a.log),
			sem: make(chan struct{}, 1),
		}
		a.threads[id] = th
	}
	return th
}

// lookupThread finds a thread by the raw id bytes of a notification without
// allocating.
func (a *Agent) lookupThread(raw []byte) *thread {
	a.mu.Lock()
	th := a.threads[string(raw)]
	a.mu.Unlock()
	return th
}

// NewSession starts a Codex thread working in cwd. A thread/start the
// app-server exits under is sent once more to its successor (tookEffect).
func (a *Agent) NewSession(ctx context.Context, cwd string) (acp.SessionId, error) {
	return a.NewSessionIn(ctx, cwd, acpbridge.DefaultMode)
}

// NewSessionIn is NewSession with the thread in mode: a confined thread
// Codex has not yet written a rollout for cannot be reloaded in another
// (acpbridge.ModeStarter).
func (a *Agent) NewSessionIn(ctx context.Context, cwd string, mode acpbridge.Mode) (acp.SessionId, error) {
	mode = cmp.Or(mode, acpbridge.DefaultMode)
	config, err := a.threadConfigIn(cwd, mode)
	if err != nil {
		return "", fmt.Errorf("start codex thread: %w", err)
	}
	ts := a.settings(cwd)
	config = withEffort(config, ts)
	var r threadResponse
	var gen int
	for resend := true; ; resend = false {
		var c *conn
		var err error
		c, gen, err = a.ensureConn(ctx)
		if err != nil {
			return "", err
		}
		err = c.call(ctx, "thread/start", threadStartParams{
			Cwd: cwd, ApprovalPolicy: a.opts.ApprovalPolicy, Sandbox: a.sandbox(), Config: config,
			Model: ts.Model, DeveloperInstructions: ts.Instructions,
		}, &r)
		if err == nil {
			break
		}
		if resend && resent("thread/start", err) {
			a.log.Warn("codex app-server exited before answering thread/start; sending it again", "err", err)
			continue
		}
		return "", fmt.Errorf("start codex thread: %w", err)
	}
	th := a.threadFor(r.Thread.ID)
	a.mu.Lock()
	th.cwd, th.gen, th.mode = cwd, gen, mode
	a.mu.Unlock()
	a.log.Info("codex thread started", "thread", r.Thread.ID)
	return acp.SessionId(r.Thread.ID), nil
}

// acquire takes the thread's one-turn-at-a-time slot.
func (th *thread) acquire(ctx context.Context) error {
	select {
	case th.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release frees the thread's slot and starts its idle clock.
func (a *Agent) release(th *thread) {
	<-th.sem
	a.scheduleUnload(th)
}

// load makes sure the thread is loaded in the current app-server, resuming it
// after a restart (or when the session came from an earlier process). A
// thread/resume the app-server exits under is sent once more to its
// successor (tookEffect).
func (a *Agent) load(ctx context.Context, th *thread, cwd string) (*conn, error) {
	return a.loadIn(ctx, th, cwd, "")
}

// loadIn is load with the thread in permission mode ("": the one it is
// loaded with, else the default). A thread loaded in another mode is
// unloaded and resumed in this one (mode.go).
func (a *Agent) loadIn(ctx context.Context, th *thread, cwd string, mode acpbridge.Mode) (*conn, error) {
	for resend := true; ; resend = false {
		c, gen, err := a.ensureConn(ctx)
		if err != nil {
			return nil, err
		}
		a.mu.Lock()
		loaded := th.gen == gen
		if cwd == "" {
			cwd = th.cwd
		}
		mode = cmp.Or(mode, th.mode, acpbridge.DefaultMode)
		changed := loaded && a.opts.Confine != nil && cmp.Or(th.mode, acpbridge.DefaultMode) != mode
		a.mu.Unlock()
		if changed {
			if err := a.unloadForMode(ctx, c, th, gen); err != nil {
				return nil, err
			}
			loaded = false
		}
		if loaded {
			return c, nil
		}
		config, err := a.threadConfigIn(cwd, mode)
		if err != nil {
			return nil, fmt.Errorf("resume codex thread %s: %w", th.id, err)
		}
		ts := a.settings(cwd)
		err = c.call(ctx, "thread/resume", threadResumeParams{
			ThreadID: th.id, Cwd: cwd, ApprovalPolicy: a.opts.ApprovalPolicy, Sandbox: a.sandbox(), Config: withEffort(config, ts),
			Model: ts.Model, DeveloperInstructions: ts.Instructions,
			ExcludeTurns: true,
		}, nil)
		if err == nil {
			a.resumed(th, cwd, gen, mode)
			return c, nil
		}
		if resend && resent("thread/resume", err) {
			a.log.Warn("codex app-server exited before answering thread/resume; sending it again", "thread", th.id, "err", err)
			continue
		}
		return nil, fmt.Errorf("resume codex thread %s: %w", th.id, err)
	}
}

// resumed records that th is loaded in app-server generation gen.
func (a *Agent) resumed(th *thread, cwd string, gen int, mode acpbridge.Mode) {
	a.mu.Lock()
	th.cwd, th.gen, th.mode = cwd, gen, mode
	a.mu.Unlock()
	a.log.Info("codex thread resumed", "thread", th.id)
}

// Prompt runs one turn on the session's thread.
//
// When the app-server hangs or dies under the turn, one fault is recovered
// (recovery.go): a turn/start it never reported started is sent again to
// the new app-server; a turn it had begun is continued there, in one more
// turn on the same sink, unless Options.FailInterrupted. A second fault
// fails the turn.
func (a *Agent) Prompt(ctx context.Context, id acp.SessionId, p acpbridge.Prompt, sink acpbridge.Sink) (acp.StopReason, error) {
	return a.drive(ctx, id, p, sink, nil)
}

// drive runs one turn on the session's thread, started by begin (nil:
// turn/start with p), recovering it as Prompt says. A recovered turn that
// had begun continues with turn/start whatever began it.
func (a *Agent) drive(ctx context.Context, id acp.SessionId, p acpbridge.Prompt, sink acpbridge.Sink, begin turnBegin) (acp.StopReason, error) {
	mode, err := a.overrides(p.Mode)
	if err != nil {
		return "", err
	}
	th := a.threadFor(string(id))
	if err := th.acquire(ctx); err != nil {
		return acp.StopReasonCancelled, err
	}
	a.busy.Add(1)
	defer a.busy.Add(-1)
	// The turn is registered before the thread is loaded, so a Cancel that
	// comes while Codex resumes the thread, or before it answers turn/start,
	// is remembered and interrupts the turn once its id is known.
	ts := newTurn(a.ctx, sink)
	ts.begin = begin
	th.turn.Store(ts)
	input := turnInput(p)
	ts.model, ts.effort, ts.mode, ts.profile = p.Model, p.Effort, mode, p.Mode
	for recovered := false; ; recovered = true {
		stop, cut, err := a.runTurn(ctx, th, ts, input)
		a.keepSnapshot(th, ts)
		if !cut {
			return stop, err
		}
		// The app-server exited under the turn; th is still held for it.
		begun := tookEffect("turn/start", false, ts.begun())
		switch {
		case ts.cancelRequestedBeforeStart():
			a.dropTurn(th, ts)
			return acp.StopReasonCancelled, nil
		case recovered:
			a.dropTurn(th, ts)
			a.log.Warn("codex app-server exited again under a recovered turn; failing it", "thread", th.id, "err", err)
			return "", faultedAgain(err)
		case !begun:
			// The dead server never began it: another conversation's hang
			// costs this one nothing.
			a.log.Warn("codex app-server exited before the turn began; sending it again", "thread", th.id, "err", err)
			ts.sent.Store(false)
		case a.opts.FailInterrupted:
			a.dropTurn(th, ts)
			return "", err
		default:
			a.log.Warn("codex app-server exited mid-turn; continuing the turn on the new one", "thread", th.id, "err", err)
			sink.Notice(continuedNotice(err))
			ts.stop() // its pending approvals answer "cancel"
			ts = newTurn(a.ctx, sink)
			ts.model, ts.effort, ts.mode, ts.profile = p.Model, p.Effort, mode, p.Mode
			th.turn.Store(ts)
			input = []userInput{{Type: "text", Text: continuationPrompt}}
		}
	}
}

// runTurn loads th, starts ts with input and waits for it to end. cut
// reports that the app-server exited under the turn before it ended: the
// thread is then still held and ts still registered, for Prompt to recover
// or drop. Otherwise the thread is freed (or will be, by finishLater).
func (a *Agent) runTurn(ctx context.Context, th *thread, ts *turnState, input []userInput) (stop acp.StopReason, cut bool, err error) {
	c, err := a.loadIn(ctx, th, "", ts.profile)
	if err != nil {
		// load sent a resume the server exited under once more already.
		a.dropTurn(th, ts)
		return "", false, err
	}
	if ts.cancelRequestedBeforeStart() {
		a.dropTurn(th, ts)
		return acp.StopReasonCancelled, false, nil
	}
	ts.tree = a.snapshotBefore(ctx, th, ts.begin)
	started, err := a.sendTurn(ctx, c, th, ts, input)
	if started != nil {
		// The turn may still start; turn/started will interrupt it.
		ts.requestCancel()
		a.finishLater(th, ts, c, started)
		return acp.StopReasonCancelled, false, ctx.Err()
	}
	if errors.Is(err, ErrAppServerExited) {
		return "", true, err
	}
	if err != nil {
		a.dropTurn(th, ts)
		return "", false, fmt.Errorf("start codex turn: %w", err)
	}
	return a.awaitTurn(ctx, c, th, ts)
}

// sendTurn sends turn/start on its own goroutine (ended by the response, the
// process exiting or Close) so a cancelled Prompt can return at once while
// whoever frees the thread still learns whether the turn started. When ctx
// ends first it returns the channel that will deliver turn/start's outcome.
func (a *Agent) sendTurn(ctx context.Context, c *conn, th *thread, ts *turnState, input []userInput) (<-chan error, error) {
	started := make(chan error, 1)
	ts.sent.Store(true)
	method, params := "turn/start", any(turnStartParams{
		ThreadID: th.id, Input: input, Model: ts.model, Effort: ts.effort,
		modeOverrides: ts.mode,
	})
	if ts.begin != nil {
		method, params = ts.begin(th.id)
	}
	go func() {
		started <- c.call(a.ctx, method, params, nil)
	}()
	select {
	case err := <-started:
		return nil, err
	case <-ctx.Done():
		return started, nil
	}
}

// awaitTurn waits for a started turn to end.
//
// A cancel waiting for the turn's id interrupts it on turn/started, not
// here: Codex 0.171.0 answers a turn/interrupt sent as soon as turn/start
// returns with "no active turn to interrupt", and the turn runs on.
//
// cut reports that the app-server exited before the turn ended; the thread
// is then still held for Prompt.
func (a *Agent) awaitTurn(ctx context.Context, c *conn, th *thread, ts *turnState) (stop acp.StopReason, cut bool, err error) {
	select {
	case <-ts.done:
	case <-c.done:
		select {
		case <-ts.done: // turn/completed was read before the exit
		default:
			return "", true, c.exitErr
		}
	case <-ctx.Done():
		if turnID, ok := ts.idOrRequestCancel(); ok {
			a.interruptAsync(c, th.id, turnID)
		}
		a.finishLater(th, ts, c, nil)
		return acp.StopReasonCancelled, false, ctx.Err()
	}
	a.release(th)
	if ts.failure != nil {
		return "", false, ts.failure
	}
	stop, err = stopReason(ts.result)
	return stop, false, err
}

// dropTurn ends a turn that is over without Codex saying so and frees its
// thread.
func (a *Agent) dropTurn(th *thread, ts *turnState) {
	th.turn.CompareAndSwap(ts, nil)
	ts.stop()
	a.release(th)
}

// finishLater detaches a turn whose Prompt gave up (its sink gets nothing
// more) and frees the thread once Codex reports the turn over. started, when
// not nil, delivers the outcome of a turn/start still in flight: a turn that
// never started frees the thread at once.
func (a *Agent) finishLater(th *thread, ts *turnState, c *conn, started <-chan error) {
	ts.detached.Store(true)
	ts.stop()
	go func() {
		if started != nil {
			select {
			case err := <-started:
				if err != nil {
					th.turn.CompareAndSwap(ts, nil)
					a.release(th)
					return
				}
			case <-c.done:
			case <-a.ctx.Done():
			}
		}
		select {
		case <-ts.done:
		case <-c.done:
		case <-a.ctx.Done():
		}
		th.turn.CompareAndSwap(ts, nil)
		a.release(th)
	}()
}

func stopReason(t turn) (acp.StopReason, error) {
	switch t.Status {
	case "interrupted":
		return acp.StopReasonCancelled, nil
	case "failed":
		return "", turnFailure(t.Error)
	default:
		return acp.StopReasonEndTurn, nil
	}
}

// interruptAsync sends turn/interrupt without blocking the caller (which may
// be the read loop).
func (a *Agent) interruptAsync(c *conn, threadID, turnID string) {
	go func() {
		ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
		defer cancel()
		if err := c.call(ctx, "turn/interrupt", turnInterruptParams{ThreadID: threadID, TurnID: turnID}, nil); err != nil {
			a.log.Warn("interrupt codex turn", "thread", threadID, "turn", turnID, "err", err)
		}
	}()
}

// Cancel interrupts the session's running turn, if any.
func (a *Agent) Cancel(ctx context.Context, id acp.SessionId) error {
	a.mu.Lock()
	th, c := a.threads[string(id)], a.conn
	a.mu.Unlock()
	if th == nil {
		return nil
	}
	// A turn still loading its thread (or waiting for its app-server to
	// start) has no id yet: the cancel is remembered like one racing
	// turn/start.
	ts := th.turn.Load()
	if ts == nil {
		return nil
	}
	turnID, ok := ts.idOrRequestCancel()
	if !ok {
		return nil // interrupted as soon as its id is known
	}
	if c == nil {
		return nil // the process died; its turns end with it
	}
	if err := c.call(ctx, "turn/interrupt", turnInterruptParams{ThreadID: th.id, TurnID: turnID}, nil); err != nil {
		return fmt.Errorf("interrupt codex turn: %w", err)
	}
	return nil
}

// Close kills the app-server; every running Prompt returns an error.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	c := a.conn
	for _, th := range a.threads {
		if th.idle != nil {
			th.idle.Stop()
		}
	}
	a.mu.Unlock()
	a.cancel()
	if c != nil {
		c.kill()
	}
	a.cache.Close()
	return nil
}

// turnState is one running turn.
type turnState struct {
	sink     acpbridge.Sink
	detached atomic.Bool // the Prompt returned early: deliver nothing more

	ctx  context.Context // cancelled when the turn ends: pending approvals answer "cancel"
	stop context.CancelFunc

	// sent is set once turn/start is written: from then on the thread's
	// notifications are this turn's (before, while the thread resumes, they
	// are not: a resume replays the last turn's token usage).
	sent atomic.Bool

	// model and effort are the Prompt's, sent with turn/start (a
	// recovered turn's again on the new app-server).
	model, effort string
	// mode is what the Prompt's mode sends with turn/start (mode.go).
	mode modeOverrides
	// begin, when set, starts the turn instead of turn/start (a review, a
	// compaction: control.go).
	begin turnBegin
	// tree is the workspace snapshot from just before turn/start, "" for
	// none (undo.go).
	tree string
	// profile is the Prompt's mode for a confined thread, which the
	// thread is loaded in (mode.go); "" keeps the thread's.
	profile acpbridge.Mode

	// Owned by the read loop: the turn id as it knows it, and what it has
	// made of Codex's error notifications (failure.go). failure is set
	// before done is closed.
	readID     string
	retryShown bool       // a retry notice is on the card
	reconnects int        // retries that never reached the provider
	finalError *turnError // a non-retry error held until turn/completed
	failure    error      // the turn was ended for this reason

	mu              sync.Mutex
	id              string // set on turn/started, when Codex can interrupt the turn
	cancelRequested bool

	done   chan struct{}
	result turn // set before done is closed
	// started is closed once the turn's id is known (turn/started): a
	// steer waits for it.
	started chan struct{}
}

func newTurn(parent context.Context, sink acpbridge.Sink) *turnState {
	ctx, stop := context.WithCancel(parent)
	return &turnState{sink: sink, ctx: ctx, stop: stop, done: make(chan struct{}), started: make(chan struct{})}
}

// activate records the id of the turn Codex reports started, and reports
// whether a cancel is waiting for it.
func (ts *turnState) activate(id string) (interrupt bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.id != "" {
		return false
	}
	ts.id = id
	close(ts.started)
	return ts.cancelRequested
}

// idOrRequestCancel returns the id of the started turn, or, when it has not
// started yet, asks for it to be interrupted as soon as it does.
func (ts *turnState) idOrRequestCancel() (string, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.id == "" {
		ts.cancelRequested = true
		return "", false
	}
	return ts.id, true
}

// cancelRequestedBeforeStart reports whether the turn was cancelled before
// turn/start was sent; it then never starts.
func (ts *turnState) cancelRequestedBeforeStart() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.cancelRequested
}

// begun reports whether Codex said the turn started (turn/started).
func (ts *turnState) begun() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.id != ""
}

func (ts *turnState) requestCancel() {
	ts.mu.Lock()
	ts.cancelRequested = true
	ts.mu.Unlock()
}

// live reports whether ts is a turn whose notifications go to its sink: its
// turn/start is sent and its Prompt still waits.
func (ts *turnState) live() bool {
	return ts != nil && ts.sent.Load() && !ts.detached.Load()
}

func (ts *turnState) finish(t turn) {
	ts.result = t
	ts.stop()
	close(ts.done)
}
