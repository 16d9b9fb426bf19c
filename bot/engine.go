package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

// Config is what the engine needs from the configuration file.
type Config struct {
	// Replica names this process among the replicas sharing the store; it
	// must be unique per process (cmd/wecodex makes it once, for every part
	// that names this replica). Required.
	Replica string
	// WorkspaceRoot is agent.workspace_root: each conversation works in its
	// own directory below it, unless Projects gives it a project's.
	WorkspaceRoot string
	// Projects says which project a conversation works in and prepares its
	// directory there; nil means no projects are configured.
	Projects Projects
	// Models is what /model offers.
	Models ModelConfig
	// Threads is the agent's record of its sessions, for /sessions, /fork
	// and /name; nil when the agent keeps none (see Threads).
	Threads Threads
	// Busy is agent.busy: what a plain message sent while its
	// conversation's turn runs does, BusyQueue (also for "") or BusySteer.
	Busy string
	// RerunOrphaned is agent.rerun_orphaned: RerunOnce (also for "") runs
	// a message whose replica died mid-turn once more on the replica that
	// takes over, RerunNever fails its card asking for it again.
	RerunOrphaned string
	// TurnTimeout is agent.turn_timeout: a turn running longer is cancelled
	// and its card says it failed.
	TurnTimeout time.Duration
	// UpdateInterval is cards.update_interval: frames are coalesced to at
	// most one per interval.
	UpdateInterval time.Duration
	// ProgressStyle is cards.progress_style ("think" or "quote"); empty
	// means think.
	ProgressStyle string
	// UsageFooter is cards.usage_footer: a finished card ends with a line
	// of the tokens its turn used (usagecmd.go).
	UsageFooter bool
	// Access says who may drive the agent.
	Access Access
	// LeaseTTL bounds how long a dead replica blocks a conversation; the
	// lease is renewed every LeaseTTL/3 while a turn runs. Required: the
	// store's (store.LeaseTTL), which keeps every TTL in one file.
	LeaseTTL time.Duration
	// HeartbeatTTL bounds how long a dead replica keeps the affinity of the
	// conversations it owns; it is renewed every HeartbeatTTL/3. Required:
	// the store's (store.ReplicaTTL).
	HeartbeatTTL time.Duration
	// PollInterval is how often the engine looks for conversations with
	// waiting messages that it may take (its own, or a dead replica's).
	// Default 1s.
	PollInterval time.Duration
	// MaxQueue is how many messages may wait per conversation; more are
	// refused. Default 5.
	MaxQueue int
	// MaxQueuedPerUser is access.max_queued_per_user: how many of one
	// user's messages may wait (queued, or in line for a turn slot) across
	// every conversation and replica; more are refused. Default
	// DefaultMaxQueuedPerUser.
	MaxQueuedPerUser int
	// MaxConcurrentTurns is agent.max_concurrent_turns: how many turns run
	// at once on this replica; the others wait in line, their cards
	// showing their place. 0 means no limit.
	MaxConcurrentTurns int
	// Approval is agent.approval, how the permission requests of a turn's
	// agent are decided: "ask" (the default, also for "") waits for a
	// person; acpbridge.ApprovalAllow or ApprovalDeny decide every request
	// at once, and the card says so. Any other value denies.
	Approval string
	// ApprovalTimeout is agent.approval_timeout: a request no one decides
	// within it is declined. Default DefaultApprovalTimeout.
	ApprovalTimeout time.Duration
	// Files are cards.files.*, the limits on the files an answer sends back;
	// zero fields take the defaults.
	Files FileLimits
	// GeneratedImages is the directory the agent's image tool saves its
	// pictures in (Codex: CODEX_HOME/generated_images). A picture the agent
	// reports it generated is sent back, within Files, only when it is a
	// PNG or JPEG under it; "" sends none.
	GeneratedImages string
	// Schedules keeps the schedules /schedule makes; nil: /schedule says
	// it is not available.
	Schedules Schedules
	// Logger receives the engine's log lines; nil means slog.Default().
	Logger *slog.Logger
	// Observer is told about turns and queues, for metrics; nil means
	// NopObserver.
	Observer Observer
	// Auditor records the audit trail; nil means NopAuditor.
	Auditor Auditor
	// Usage is what /usage reads besides the store (usagecmd.go).
	Usage UsageConfig
	// Limits are the per-user limits (limits.*), counted in Store.Limits.
	Limits Limits
}

// Defaults of Config, also what configs documents.
const (
	DefaultTurnTimeout = 30 * time.Minute
)

func (c *Config) setDefaults() error {
	if c.Replica == "" {
		return errors.New("bot config: the replica id is empty")
	}
	if c.WorkspaceRoot == "" {
		return errors.New("bot config: agent.workspace_root is empty")
	}
	if c.LeaseTTL <= 0 || c.HeartbeatTTL <= 0 {
		return errors.New("bot config: LeaseTTL and HeartbeatTTL must be set (the store's TTLs)")
	}
	setDefault(&c.TurnTimeout, DefaultTurnTimeout)
	setDefault(&c.UpdateInterval, cards.DefaultUpdateInterval)
	setDefault(&c.PollInterval, time.Second)
	setDefault(&c.ApprovalTimeout, DefaultApprovalTimeout)
	c.Files.setDefaults()
	if c.MaxQueue <= 0 {
		c.MaxQueue = 5
	}
	if c.MaxQueuedPerUser <= 0 {
		c.MaxQueuedPerUser = DefaultMaxQueuedPerUser
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Observer == nil {
		c.Observer = NopObserver{}
	}
	if c.Auditor == nil {
		c.Auditor = NopAuditor{}
	}
	return nil
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

// Engine runs conversations across every replica that shares its Store. It
// is three collaborators wired together: intake (Receive: dedupe, access,
// commands, enqueue), the scheduler (Run: leases, queues, heartbeat,
// affinity, /stop) and the turn runner (session, prompt, outcome, card),
// which presents each turn on the Channel its message came from.
type Engine struct {
	cfg      Config
	channels *channels
	intake   *intake
	sched    *scheduler
	runner   *turnRunner
	approve  *approvals
}

// New returns an engine serving the given channels; call Run to let it start
// turns. Every replica must register the same channels, since any replica
// may run a message any channel received.
func New(cfg Config, st Store, agent acpbridge.Agent, chans ...Channel) (*Engine, error) {
	if agent == nil || len(chans) == 0 {
		return nil, errors.New("bot: New needs a store, an agent and at least one channel")
	}
	if err := st.check(); err != nil {
		return nil, err
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	cs, err := newChannels(chans)
	if err != nil {
		return nil, err
	}
	if cfg.Access.Closed() {
		cfg.Logger.Warn("access lists are empty: nobody may use the bot until access.allow_users, access.allow_chats or access.admins names someone")
	}
	log := cfg.Logger.With("replica", cfg.Replica)
	ap := newApprovals(cfg, st.Approvals, log)
	runner := newTurnRunner(cfg, turnParts{st.Attachments, st.Conversations}, agent, cs, ap, log)
	runner.limits, runner.threads = st.Limits, st.Threads
	usage, _ := st.Conversations.(UsageStore)
	runner.usage = usage
	sched := newScheduler(cfg, schedulerParts{st.Queue, st.Replicas}, runner, cs, log)
	in := &intake{cfg: cfg, store: intakeParts{st.Dedupe, st.Attachments, st.Queue, st.Conversations}, channels: cs, sched: sched, approvals: ap, limits: st.Limits, threads: st.Threads, usageStore: usage, log: log}
	in.agent = agent
	if steers, ok := st.Queue.(SteerStore); ok {
		in.steers, sched.steers = steers, steers
	}
	sched.push = in.push
	return &Engine{cfg: cfg, channels: cs, intake: in, sched: sched, runner: runner, approve: ap}, nil
}

// Replica returns this engine's replica id.
func (e *Engine) Replica() string { return e.cfg.Replica }

// Channels returns the names of the registered channels, in registration
// order.
func (e *Engine) Channels() []string { return append([]string(nil), e.channels.names...) }

// Receive hands one user message to intake; see intake.receive.
func (e *Engine) Receive(ctx context.Context, m Message) (Receipt, error) {
	return e.intake.receive(ctx, m)
}

// Run starts turns until ctx ends: it takes conversations with waiting
// messages (woken by Receive, or found by a poll), keeps this replica's
// heartbeat and listens for /stop requests from other replicas. When ctx
// ends, running turns are cancelled and their messages queued again, first
// in line, for whichever replica takes the conversation next (their replies
// say so), and Run returns once every turn has finished. Drain stops it
// taking turns before that.
func (e *Engine) Run(ctx context.Context) error { return e.sched.run(ctx) }

// channels are the engine's registered channels by name.
type channels struct {
	names  []string
	byName map[string]Channel
}

func newChannels(list []Channel) (*channels, error) {
	cs := &channels{byName: make(map[string]Channel, len(list))}
	for _, c := range list {
		name := c.Name()
		if name == "" {
			return nil, errors.New("bot: a channel has no name")
		}
		if _, dup := cs.byName[name]; dup {
			return nil, fmt.Errorf("bot: two channels are named %q", name)
		}
		cs.names = append(cs.names, name)
		cs.byName[name] = c
	}
	return cs, nil
}

// of returns the channel named name. A message queued before channels were
// named has none: the first registered channel, the only one then, is
// where it came from.
func (cs *channels) of(name string) (Channel, bool) {
	if name == "" {
		name = cs.names[0]
	}
	c, ok := cs.byName[name]
	return c, ok
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
