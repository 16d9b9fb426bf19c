package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/store"
)

// shutdownTimeout bounds how long in-flight requests may finish after
// SIGINT/SIGTERM before the server closes their connections.
const shutdownTimeout = 15 * time.Second

func cmdServe(args []string, stderr io.Writer) int {
	lc, code, ok := cli.LoadValid("serve", args, stderr, checkSchedules)
	if !ok {
		return code
	}
	log := cli.NewLogger(lc.Log, stderr)
	cli.LogWarnings(log, lc.Path, append(lc.Warnings, servesOwnStartWarnings(lc.Config)...))
	sd, release := notifyShutdown()
	defer release()
	if err := serve(sd, lc.Config, lc.Path, log); err != nil {
		log.Error("serve failed", "err", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// HTTP server timeouts. No WriteTimeout would let a stalled reader hold a
// connection forever; the playground's event stream, the one long response,
// lifts both deadlines for itself. WeCom's callbacks are answered within 5 s.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 2 * time.Minute
)

// serve runs the HTTP server until sd.drain ends, then drains the engine
// (see engine.drain) while still answering callbacks, and shuts down.
func serve(sd shutdown, cfg *configs.Config, configPath string, log *slog.Logger) error {
	ctx := sd.drain
	reg, err := newProjects(cfg, log)
	if err != nil {
		return err
	}
	sb, err := newSandbox(cfg, configPath, reg)
	if err != nil {
		return err
	}
	cfg, err = withPlaygroundCredentials(cfg, log)
	if err != nil {
		return err
	}
	cfg, lcPlayground, err := startLongConnPlayground(cfg, log)
	if err != nil {
		return err
	}
	mounted := false
	defer func() {
		if lcPlayground != nil && !mounted {
			_ = lcPlayground.Close()
		}
	}()
	st, err := store.Open(ctx, store.Options{
		Addrs:      cfg.Redis.Addrs(),
		MasterName: cfg.Redis.MasterName,
		Password:   cfg.Redis.Password,
		DB:         cfg.Redis.DB,
		Prefix:     cfg.Redis.Prefix,
	}, log)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Warn("close store", "err", err)
		}
	}()

	tel, err := newTelemetry()
	if err != nil {
		return err
	}
	st.CountErrors(tel.obs.RedisError)
	deps := serverDeps{
		Config:   cfg,
		Redis:    st,
		LookPath: exec.LookPath,
		Log:      log,
		// Draining: the load balancer should send callbacks elsewhere.
		Draining: func() bool { return ctx.Err() != nil },
	}
	if cfg.Metrics.Addr == "" {
		deps.Metrics = tel.handler()
	} else {
		stopInternal, err := tel.serveInternal(cfg.Metrics, log)
		if err != nil {
			return err
		}
		defer stopInternal()
	}
	replica := replicaID()
	chans, err := configuredChannels(cfg, channelEnv{Store: st, Replica: replica, Obs: tel.obs, Log: log})
	if err != nil {
		return err
	}
	deps.Channels = chans
	var eng *engine
	// With no channel configured nobody can reach an engine: none runs.
	if len(chans) > 0 {
		eng, err = startEngine(ctx, cfg, sb, reg, st, replica, chans, tel.obs, log)
		if err != nil {
			return err
		}
		// Stopped after the HTTP server, so in-flight callbacks still reach
		// a running engine.
		defer eng.stop()
		// Before it (deferred later): what the channels still do in the
		// background (fetching a message's files) ends first.
		defer closeChannels(chans)
		deps.AgentWarnings = eng.warnings()
		sc := startSchedules(ctx, cfg, st, eng.engine, auditor(eng.audit), replica, tel.obs, log)
		defer sc.stop()
		deps.Hooks, deps.Schedules = sc.handler(), sc.nextSlots
	}
	handler := newHandler(deps)

	ln, err := net.Listen("tcp", cfg.Server.Addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("listen on server.addr %s: %w (another program, perhaps another wecodex, is listening there: stop it, or move this one with server.addr or WECODEX_SERVER_ADDR, e.g. WECODEX_SERVER_ADDR=127.0.0.1:8090)", cfg.Server.Addr, err)
		}
		return fmt.Errorf("listen on server.addr %s: %w", cfg.Server.Addr, err)
	}
	// The playground plays WeCom toward our own webhook, so it needs the
	// address we listen on.
	stopPlayground, err := mountPlayground(handler, cfg, selfURL(ln.Addr()), lcPlayground, log)
	if err != nil {
		_ = ln.Close()
		return err
	}
	mounted = true
	// Deferred after eng.stop, so it runs before it: the playground's
	// streams stop following before the engine goes away.
	defer func() {
		if err := stopPlayground(); err != nil {
			log.Warn("stop playground", "err", err)
		}
	}()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	log.Info("listening", "addr", ln.Addr().String(), "agent", cfg.Agent.Kind, "embedded_redis", st.Embedded())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	// Callbacks that still arrive while the turns finish are answered and
	// queued for the other replicas.
	if eng != nil {
		eng.drain(sd.now, cfg.Server.DrainTimeout)
	}

	log.Info("shutting down", "timeout", shutdownTimeout.String())
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shut down http server: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	log.Info("stopped")
	return nil
}

// withPlaygroundCredentials returns cfg with a random AI bot token and
// EncodingAESKey when the playground is on and neither is configured
// (configs.EphemeralAIBotCredentials): nothing secret is committed, and only
// the playground, which is handed them, can sign a callback. They are never
// logged and die with the process.
func withPlaygroundCredentials(cfg *configs.Config, log *slog.Logger) (*configs.Config, error) {
	if !cfg.EphemeralAIBotCredentials() {
		return cfg, nil
	}
	var tok, key [32]byte
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, fmt.Errorf("make the playground's token: %w", err)
	}
	if _, err := rand.Read(key[:]); err != nil {
		return nil, fmt.Errorf("make the playground's EncodingAESKey: %w", err)
	}
	c := *cfg
	c.WeCom.AIBot.Token = hex.EncodeToString(tok[:])
	// 32 bytes are 43 base64 characters and one "=", which WeCom's format drops.
	c.WeCom.AIBot.EncodingAESKey = strings.TrimSuffix(base64.StdEncoding.EncodeToString(key[:]), "=")
	log.Info("playground: made up a token and EncodingAESKey for this run, since wecom.aibot.token and encoding_aes_key are empty; only the playground can sign callbacks")
	return &c, nil
}

// servesOwnStartWarnings is startWarnings (which check-config prints in
// full) less the two the store and the engine log themselves, in the same
// words, when they start: the embedded Redis and the empty access lists.
func servesOwnStartWarnings(cfg *configs.Config) []configs.Warning {
	var ws []configs.Warning
	for _, w := range startWarnings(cfg, exec.LookPath) {
		if w.Key != "redis.addr" && w.Key != "access" {
			ws = append(ws, w)
		}
	}
	return ws
}
