package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/acpbridge/external"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom/longconn"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/store"
)

// engineStopTimeout bounds how long shutdown waits for running turns to
// notice they were cancelled and write their last frame before the agent is
// closed under them.
const engineStopTimeout = 20 * time.Second

// aibot is the running AI-bot webhook channel: the agent, the engine that
// drives it, and the endpoint WeCom calls.
type aibot struct {
	handler  http.Handler         // the webhook endpoint; nil in longconn mode
	longconn *longconn.Connection // the long connection; nil in webhook mode
	engine   *bot.Engine
	agent    acpbridge.Agent
	log      *slog.Logger

	stopRun context.CancelFunc
	runDone chan struct{}
}

// startAIBot builds the agent (agent.kind), the engine over st and the
// webhook handler, and starts the engine. Stop it with stop after the HTTP
// server has shut down.
func startAIBot(ctx context.Context, cfg *configs.Config, st *store.Store, obs bot.Observer, log *slog.Logger) (*aibot, error) {
	root, err := filepath.Abs(cfg.Agent.WorkspaceRoot)
	if err != nil {
		return nil, fmt.Errorf("agent.workspace_root %s: %w", cfg.Agent.WorkspaceRoot, err)
	}

	// The agent needs the permission hook before the engine exists, and the
	// hook reports on the engine's cards: it looks the engine up when a
	// request arrives, which is only ever during a turn the engine runs.
	var engine *bot.Engine
	policy := acpbridge.Policy(cfg.Agent.Approval)
	permissions := func(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		if cfg.Agent.Approval == configs.ApprovalAsk {
			return engine.AskPermissions(ctx, req)
		}
		return engine.ReportPermissions(policy)(ctx, req)
	}

	agent, err := newAgent(ctx, cfg, st, permissions, obs.AgentRestarted, log)
	if err != nil {
		return nil, err
	}
	replica := replicaID()
	var (
		channel bot.Channel
		hooked  *webhook.Channel
		lc      *longconn.Connection
		lcChan  *longconn.Channel
	)
	if longConnMode(cfg) {
		lc, err = longconn.New(longconn.Config{
			Client: longconn.Options{URL: cfg.WeCom.AIBot.WSURL, BotID: cfg.WeCom.AIBot.BotID, Secret: cfg.WeCom.AIBot.Secret, Log: log,
				OnCallback: func(ctx context.Context, f longconn.Frame) { lcChan.Callbacks(engine)(ctx, f) }},
			Replica: replica, Store: st, HolderTTL: store.HolderTTL, RenewEvery: store.HolderRenewEvery,
			Welcome: cfg.WeCom.AIBot.Welcome, Log: log,
		})
		if err == nil {
			lcChan = longconn.NewChannel(lc, log)
			channel = lcChan
		}
	} else {
		hooked, err = webhook.New(st, &webhook.ResponseURLDeliverer{}, webhook.Options{
			StreamWindow: cfg.WeCom.AIBot.StreamWindow,
			Logger:       log,
		})
		channel = hooked
	}
	if err != nil {
		_ = agent.Close()
		return nil, fmt.Errorf("wecom.aibot: %w", err)
	}
	engine, err = bot.New(bot.Config{
		Replica:         replica,
		WorkspaceRoot:   root,
		TurnTimeout:     cfg.Agent.TurnTimeout,
		ApprovalTimeout: cfg.Agent.ApprovalTimeout,
		UpdateInterval:  cfg.Cards.UpdateInterval,
		ProgressStyle:   cfg.Cards.ProgressStyle,
		Access: bot.Access{
			AllowUsers: cfg.Access.AllowUsers,
			AllowChats: cfg.Access.AllowChats,
			Admins:     cfg.Access.Admins,
		},
		Logger:   log,
		Observer: obs,
	}, st, agent, channel)
	if err != nil {
		_ = agent.Close()
		return nil, fmt.Errorf("start bot engine: %w", err)
	}
	var hook http.Handler
	if hooked != nil {
		hook, err = webhook.NewHandler(webhook.HandlerOptions{
			Token:          cfg.WeCom.AIBot.Token,
			EncodingAESKey: cfg.WeCom.AIBot.EncodingAESKey,
			Streams:        hooked.Streams(engine),
			Logger:         log,
		})
		if err != nil {
			_ = agent.Close()
			return nil, fmt.Errorf("wecom.aibot: %w", err)
		}
	}

	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	a := &aibot{handler: hook, longconn: lc, engine: engine, agent: agent, log: log, stopRun: stopRun, runDone: make(chan struct{})}
	go func() {
		defer close(a.runDone)
		if lc != nil {
			// The connection stops (releasing its lease) with the engine.
			connDone := make(chan struct{})
			go func() { defer close(connDone); _ = lc.Run(runCtx) }()
			defer func() { <-connDone }()
		}
		if err := engine.Run(runCtx); err != nil {
			log.Error("bot engine stopped", "err", err)
		}
	}()
	if lc != nil {
		log.Info("wecom aibot long connection", "ws_url", cfg.WeCom.AIBot.WSURL, "agent", cfg.Agent.Kind, "replica", engine.Replica())
	} else {
		log.Info("wecom aibot webhook", "path", cfg.WeCom.AIBot.Path, "agent", cfg.Agent.Kind, "replica", engine.Replica())
	}
	return a, nil
}

// replicaID names this process among the replicas sharing the store, in
// the engine and in the long connection's holder lease alike.
func replicaID() string {
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// longConnMode reports whether the AI bot is served over the long
// connection: wecom.aibot.mode longconn (with the playground on, it plays
// the long-connection server).
func longConnMode(cfg *configs.Config) bool {
	return cfg.AIBotEnabled() && cfg.WeCom.AIBot.Mode == configs.AIBotLongConn
}

// newAgent builds the agent agent.kind names. Codex keeps message phases in
// the store (its own in-process cache sits in front), so any replica and a
// restarted app-server still route commentary to the progress section.
func newAgent(ctx context.Context, cfg *configs.Config, st *store.Store, perms acpbridge.PermissionFunc, restarted func(), log *slog.Logger) (acpbridge.Agent, error) {
	switch cfg.Agent.Kind {
	case configs.AgentACP:
		a, err := external.New(ctx, external.Options{
			Command:       cfg.Agent.ACP.Command,
			Env:           cfg.Agent.ACP.Env,
			Permissions:   perms,
			ClientVersion: version,
			Log:           log,
			OnRestart:     restarted,
		})
		if err != nil {
			return nil, fmt.Errorf("start agent.acp.command: %w", err)
		}
		return a, nil
	case configs.AgentCodex:
		c := cfg.Agent.Codex
		env, err := codexEnv(c)
		if err != nil {
			return nil, err
		}
		return codex.New(codex.Options{
			Bin:            c.Bin,
			Config:         c.Config,
			Env:            env,
			Sandbox:        c.Sandbox,
			ApprovalPolicy: c.ApprovalPolicy,
			Phases:         st,
			Permissions:    perms,
			Logger:         log,
			OnRestart:      restarted,
		}), nil
	default:
		return nil, fmt.Errorf("agent.kind %q: want codex or acp", cfg.Agent.Kind)
	}
}

// drain stops the engine taking turns and waits, up to timeout or until now
// ends (a second signal), for its running turns to finish.
func (a *aibot) drain(now context.Context, timeout time.Duration) {
	a.log.Info("draining", "timeout", timeout.String(), "stop_now", "send SIGTERM or SIGINT again")
	ctx, cancel := context.WithTimeout(now, timeout)
	defer cancel()
	switch err := a.engine.Drain(ctx); {
	case err == nil:
		a.log.Info("drained")
	case now.Err() != nil:
		a.log.Warn("second signal: stopping now; re-queueing the turns still running")
	default:
		a.log.Warn("drain timed out; cancelling the turns still running and re-queueing their messages", "timeout", timeout.String())
	}
}

// stop ends the engine (turns still running are cancelled and their messages
// queued again; their cards say so), then closes the agent.
func (a *aibot) stop() {
	a.stopRun()
	t := time.NewTimer(engineStopTimeout)
	defer t.Stop()
	stopped := true
	select {
	case <-a.runDone:
	case <-t.C:
		stopped = false
		a.log.Warn("bot engine did not stop in time; closing the agent under its turns", "timeout", engineStopTimeout.String())
	}
	if err := a.agent.Close(); err != nil && !errors.Is(err, context.Canceled) {
		a.log.Warn("close agent", "err", err)
	}
	if !stopped {
		// Closing the agent ends the turns that ignored the cancel.
		<-a.runDone
	}
}
