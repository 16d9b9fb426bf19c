package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/acpbridge/external"
	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/metrics"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/retention"
	"github.com/wecodex/wecodex/sandbox"
	"github.com/wecodex/wecodex/store"
)

// engineStopTimeout bounds how long shutdown waits for running turns to
// notice they were cancelled and write their last frame before the agent is
// closed under them.
const engineStopTimeout = 20 * time.Second

// engine is this process's one bot engine, the agent it drives and the
// channels registered on it, running until stop.
type engine struct {
	engine *bot.Engine
	agent  acpbridge.Agent
	audit  *audit.Log // nil: no audit trail
	log    *slog.Logger

	stopRun context.CancelFunc
	runDone chan struct{}
	// loginMissing, for agent.kind codex, says whether Codex's CODEX_HOME
	// still has no login (checked on each /readyz, so a login made while
	// the service runs clears it); nil for other agents.
	loginMissing func() bool
	// projects, when configured, has its idle worktrees removed while the
	// engine runs.
	projects    *projects.Registry
	idleCleanup time.Duration
	inUse       projects.InUse // which conversations' worktrees cleanup keeps
	// retention sweeps what is past its retention.* age while the engine
	// runs.
	retention *retention.Sweeper
	retainAll time.Duration // how often it sweeps
}

// startEngine builds the agent (agent.kind) and the engine over db with
// chans registered on it, attaches each channel to the engine, and starts
// the engine and the channels' connections. Stop it with stop after the HTTP
// server has shut down.
func startEngine(ctx context.Context, cfg *configs.Config, sb *sandbox.Sandbox, reg *projects.Registry, db *store.DB, replica string, chans []*channel, obs *metrics.Metrics, log *slog.Logger) (*engine, error) {
	root, err := filepath.Abs(cfg.Agent.WorkspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("agent.workspace_root %s: %w", cfg.Agent.WorkspaceRoot, err)
	}
	logSandbox(log, cfg, sb)
	agent, err := newAgent(ctx, cfg, sb, reg, store.NewPhases(db), obs.AgentRestarted, log)
	if err != nil {
		return nil, err
	}
	aud, err := openAudit(cfg, db, replica, log)
	if err != nil {
		_ = agent.Close()
		return nil, err
	}
	ecfg := engineConfig(cfg, root, replica, obs, log)
	ecfg.Projects = botProjects(reg)
	ecfg.Schedules = scheduleBook(cfg, db) // schedules.go
	ecfg.Auditor, ecfg.Limits = auditor(aud), engineLimits(cfg)
	ecfg.Models = botModels(cfg, agent) // models.go
	ecfg.Threads = botThreads(agent)    // threads.go
	ecfg.Usage = botUsage(agent)
	e, err := bot.New(ecfg, engineStore(db), agent, botChannels(chans)...)
	if err != nil {
		_ = agent.Close()
		_ = aud.Close()
		return nil, fmt.Errorf("start bot engine: %w", err)
	}
	for _, ch := range chans {
		if ch.attach == nil {
			continue
		}
		if err := ch.attach(e); err != nil {
			_ = agent.Close()
			return nil, fmt.Errorf("%s: %w", ch.name, err)
		}
	}
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	eng := &engine{engine: e, agent: agent, audit: aud, log: log, stopRun: stopRun, runDone: make(chan struct{}), projects: reg, idleCleanup: cfg.Projects.IdleCleanup, inUse: leaseHeld(store.NewQueue(db))}
	eng.retention = newSweeper(cfg, agent, db, root, log) // retention.go
	eng.retainAll = retention.Interval(cfg.Retention.Threads, cfg.Retention.Attachments, cfg.Retention.Audit)
	if c := cfg.Agent.Codex; cfg.Agent.Kind == configs.AgentCodex {
		home := c.CodexHome(os.Getenv)
		eng.loginMissing = func() bool { return !codexLoggedIn(c, home) }
	}
	go eng.run(runCtx, chans)
	for _, ch := range chans {
		log.Info(ch.started, append(ch.startedAttrs, "agent", cfg.Agent.Kind, "replica", replica)...)
	}
	return eng, nil
}

// engineStore is the engine's store: one part of db per purpose.
func engineStore(db *store.DB) bot.Store {
	return bot.Store{
		Dedupe:        store.NewDedupe(db),
		Queue:         store.NewQueue(db),
		Replicas:      store.NewReplicas(db),
		Conversations: store.NewConversations(db),
		Attachments:   store.NewAttachments(db),
		Approvals:     store.NewApprovals(db),
		Limits:        store.NewLimits(db),
		Threads:       store.NewThreads(db),
	}
}

// engineConfig is the engine's part of cfg, with the store's TTLs (keys.go
// is their one home).
func engineConfig(cfg *configs.Config, root, replica string, obs bot.Observer, log *slog.Logger) bot.Config {
	return bot.Config{
		Replica:            replica,
		LeaseTTL:           store.LeaseTTL,
		HeartbeatTTL:       store.ReplicaTTL,
		WorkspaceRoot:      root,
		TurnTimeout:        cfg.Agent.TurnTimeout,
		Approval:           cfg.Agent.Approval,
		ApprovalTimeout:    cfg.Agent.ApprovalTimeout,
		UpdateInterval:     cfg.Cards.UpdateInterval,
		Files:              bot.FileLimits{MaxCount: cfg.Cards.Files.MaxCount, MaxBytes: cfg.Cards.Files.MaxBytes, MaxTotalBytes: cfg.Cards.Files.MaxTotalBytes},
		ProgressStyle:      cfg.Cards.ProgressStyle,
		Busy:               cfg.Agent.Busy,
		RerunOrphaned:      cfg.Agent.RerunOrphaned,
		UsageFooter:        cfg.Cards.UsageFooter,
		MaxConcurrentTurns: cfg.Agent.MaxConcurrentTurns,
		MaxQueuedPerUser:   cfg.Access.MaxQueuedPerUser,
		Access: bot.Access{
			AllowUsers: cfg.Access.AllowUsers,
			AllowChats: cfg.Access.AllowChats,
			Admins:     cfg.Access.Admins,
			// External contacts: refused unless allowed; the app's corp id,
			// when set, is the bot's own company.
			AllowExternal: cfg.Access.AllowExternal,
			Corp:          cfg.WeCom.App.CorpID,
			Approvers:     cfg.Access.Approvers,
		},
		Logger:          log,
		Observer:        obs,
		GeneratedImages: generatedImagesDir(cfg),
	}
}

// generatedImagesDir is where Codex saves the pictures its image tool
// draws (CODEX_HOME/generated_images), which the engine may send back; ""
// for another agent, whose reports of generated pictures are not trusted.
func generatedImagesDir(cfg *configs.Config) string {
	if cfg.Agent.Kind != configs.AgentCodex {
		return ""
	}
	home := cfg.Agent.Codex.CodexHome(os.Getenv)
	if home == "" {
		return ""
	}
	return filepath.Join(home, "generated_images")
}

// run runs the engine and the channels' connections until ctx ends; the
// connections stop (releasing their leases) with the engine.
func (e *engine) run(ctx context.Context, chans []*channel) {
	defer close(e.runDone)
	var conns sync.WaitGroup
	defer conns.Wait()
	if e.projects != nil {
		conns.Add(1)
		go func() {
			defer conns.Done()
			runCleanup(ctx, e.projects, e.idleCleanup, e.inUse, e.log)
		}()
	}
	if e.retention != nil && e.retention.Active() {
		conns.Add(1)
		go func() {
			defer conns.Done()
			e.retention.Run(ctx, e.retainAll)
		}()
	}
	for _, ch := range chans {
		if ch.run == nil {
			continue
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			if err := ch.run(ctx); err != nil {
				e.log.Error("channel stopped", "channel", ch.name, "err", err)
			}
		}()
	}
	if err := e.engine.Run(ctx); err != nil {
		e.log.Error("bot engine stopped", "err", err)
	}
}

// replicaID names this process among the replicas sharing the store, in
// the engine and in the long connection's holder lease alike.
func replicaID() string {
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// newAgent builds the agent agent.kind names. Codex keeps message phases in
// the store (its own in-process cache sits in front), so any replica and a
// restarted app-server still route commentary to the progress section, and
// confines each thread to sb (none when nil).
func newAgent(ctx context.Context, cfg *configs.Config, sb *sandbox.Sandbox, reg *projects.Registry, phases acpbridge.PhaseStore, restarted func(), log *slog.Logger) (acpbridge.Agent, error) {
	switch cfg.Agent.Kind {
	case configs.AgentACP:
		a, err := external.New(ctx, external.Options{
			Command:       cfg.Agent.ACP.Command,
			Env:           cfg.Agent.ACP.Env,
			ClientVersion: cli.Version,
			Log:           log,
			OnRestart:     restarted,
			// The one switch for both kinds of agent.
			FailInterrupted: !cfg.Agent.Codex.ContinueInterrupted,
		})
		if err != nil {
			return nil, fmt.Errorf("start agent.acp.command: %w", err)
		}
		return a, nil
	case configs.AgentCodex:
		c := cfg.Agent.Codex
		env, err := cli.CodexEnv(c)
		if err != nil {
			return nil, err
		}
		home := strings.TrimPrefix(env[0], "CODEX_HOME=")
		log.Info("codex", "bin", c.Bin, "codex_home", home, "logged_in", codexLoggedIn(c, home))
		opts := codex.Options{
			Bin:             c.Bin,
			Config:          withHistoryRetention(withCommandEnvPolicy(c), cfg.Retention),
			Env:             env,
			Sandbox:         c.Sandbox,
			ApprovalPolicy:  c.ApprovalPolicy,
			Phases:          phases,
			Logger:          log,
			OnRestart:       restarted,
			FailInterrupted: !c.ContinueInterrupted,
			IdleUnload:      c.IdleUnload,
			SnapshotDir:     snapshotDir(cfg),
		}
		if sb != nil {
			opts.Confine = sb.Confine
		}
		if reg != nil {
			opts.Thread = projectThread(reg)
		}
		return codex.New(opts), nil
	default:
		return nil, fmt.Errorf("agent.kind %q: want codex or acp", cfg.Agent.Kind)
	}
}

// drain stops the engine taking turns and waits, up to timeout or until now
// ends (a second signal), for its running turns to finish.
func (e *engine) drain(now context.Context, timeout time.Duration) {
	e.log.Info("draining", "timeout", timeout.String(), "stop_now", "send SIGTERM or SIGINT again")
	ctx, cancel := context.WithTimeout(now, timeout)
	defer cancel()
	switch err := e.engine.Drain(ctx); {
	case err == nil:
		e.log.Info("drained")
	case now.Err() != nil:
		e.log.Warn("second signal: stopping now; re-queueing the turns still running")
	default:
		e.log.Warn("drain timed out; cancelling the turns still running and re-queueing their messages", "timeout", timeout.String())
	}
}

// stop ends the engine (turns still running are cancelled and their messages
// queued again; their cards say so), then closes the agent.
func (e *engine) stop() {
	e.stopRun()
	t := time.NewTimer(engineStopTimeout)
	defer t.Stop()
	stopped := true
	select {
	case <-e.runDone:
	case <-t.C:
		stopped = false
		e.log.Warn("bot engine did not stop in time; closing the agent under its turns", "timeout", engineStopTimeout.String())
	}
	if err := e.agent.Close(); err != nil && !errors.Is(err, context.Canceled) {
		e.log.Warn("close agent", "err", err)
	}
	if !stopped {
		// Closing the agent ends the turns that ignored the cancel.
		<-e.runDone
	}
	// Last: the ended turns' records are written.
	if err := e.audit.Close(); err != nil {
		e.log.Warn("close audit.file", "err", err)
	}
}

// warnings is the agent's environment warnings for /readyz, nil when the
// agent reports none.
func (e *engine) warnings() func() []string {
	var agent func() []string
	if w, ok := e.agent.(interface{ Warnings() []string }); ok {
		agent = w.Warnings
	}
	if e.loginMissing == nil {
		return agent
	}
	return func() []string {
		var ws []string
		if e.loginMissing() {
			ws = append(ws, notLoggedIn)
		}
		if agent != nil {
			ws = append(ws, agent()...)
		}
		return ws
	}
}

// snapshotDir is where Codex's threads keep the workspace snapshots /undo
// puts files back from: root/.snapshots, beside the workspaces (no
// workspace's name starts with a dot), so a conversation's sandbox reads
// them no more than it reads another's workspace.
func snapshotDir(cfg *configs.Config) string {
	root, err := filepath.Abs(cfg.Agent.WorkspaceRoot)
	if err != nil || cfg.Agent.WorkspaceRoot == "" {
		return ""
	}
	return filepath.Join(root, ".snapshots")
}
