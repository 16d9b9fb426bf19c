package main

import (
	"context"
	"fmt"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/longconn"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/store"
)

// aibotName is the AI bot's config section and its key on /readyz, in
// either mode.
const aibotName = "wecom_aibot"

// aibotChannel is the AI bot (wecom.aibot.*) in the mode it is configured
// in: the webhook, or the long connection; nil when it is off.
func aibotChannel(cfg *configs.Config, env channelEnv) (*channel, error) {
	switch {
	case longConnMode(cfg):
		return longConnChannel(cfg, env)
	case cfg.AIBotWebhook():
		return webhookChannel(cfg, env)
	}
	return nil, nil
}

// longConnMode reports whether the AI bot is served over the long
// connection: wecom.aibot.mode longconn (with the playground on, it plays
// the long-connection server).
func longConnMode(cfg *configs.Config) bool {
	return cfg.AIBotEnabled() && cfg.WeCom.AIBot.Mode == configs.AIBotLongConn
}

// webhookChannel is the AI bot's webhook: WeCom POSTs callbacks to
// wecom.aibot.path, each counted as one callback of the channel.
func webhookChannel(cfg *configs.Config, env channelEnv) (*channel, error) {
	hosts, err := allowedHosts(cfg)
	if err != nil {
		return nil, err
	}
	media := mediaFetcher(cfg, hosts)
	hooked, err := webhook.New(store.NewWebhook(env.Store), &webhook.ResponseURLDeliverer{Hosts: hosts}, webhook.Options{
		StreamWindow: cfg.WeCom.AIBot.StreamWindow,
		Logger:       env.Log,
	})
	if err != nil {
		return nil, fmt.Errorf("wecom.aibot: %w", err)
	}
	path := cfg.WeCom.AIBot.Path
	ch := &channel{name: aibotName, bot: hooked, path: path,
		status:  func() (bool, string) { return true, "webhook " + path },
		started: "wecom aibot webhook", startedAttrs: []any{"path", path}}
	ch.attach = func(e *bot.Engine) error {
		h, err := webhook.NewHandler(webhook.HandlerOptions{
			Token:          cfg.WeCom.AIBot.Token,
			EncodingAESKey: cfg.WeCom.AIBot.EncodingAESKey,
			Streams:        hooked.Streams(e),
			Logger:         env.Log,
			Media:          media,
		})
		if err != nil {
			return fmt.Errorf("wecom.aibot: %w", err)
		}
		ch.handler = observeCallbacks(webhook.Name, env.Obs, h)
		ch.close = h.Close
		return nil
	}
	return ch, nil
}

// mediaFetcher fetches the files of AI-bot messages within wecom.media.*,
// from hosts only.
func mediaFetcher(cfg *configs.Config, hosts *wecom.AllowedHosts) wecom.Fetcher {
	m := cfg.WeCom.Media
	return wecom.Fetcher{Hosts: hosts, Timeout: m.Timeout, MaxBytes: m.MaxBytes, MaxFiles: m.MaxFiles}
}

// allowedHosts is wecom.allowed_hosts: where media downloads and
// response_url posts may go.
func allowedHosts(cfg *configs.Config) (*wecom.AllowedHosts, error) {
	h, err := wecom.NewAllowedHosts(cfg.WeCom.AllowedHosts...)
	if err != nil {
		return nil, fmt.Errorf("wecom.allowed_hosts: %w", err)
	}
	return h, nil
}

// longConnChannel is the AI bot's long connection: this replica holds it
// while it holds the lease, and any replica presents on it.
func longConnChannel(cfg *configs.Config, env channelEnv) (*channel, error) {
	var (
		lcChan    *longconn.Channel
		callbacks func(context.Context, longconn.Frame) string
	)
	conn, err := longconn.New(longconn.Config{
		Client: longconn.Options{URL: cfg.WeCom.AIBot.WSURL, BotID: cfg.WeCom.AIBot.BotID, Secret: cfg.WeCom.AIBot.Secret, Log: env.Log,
			OnCallback: func(ctx context.Context, f longconn.Frame) {
				start := time.Now()
				env.Obs.Callback(longconn.Name, callbacks(ctx, f), time.Since(start))
			},
			// 1 while this replica's connection is subscribed; a replica
			// on standby never has one.
			OnState: func(s longconn.State) { env.Obs.LongConnConnected(s.Subscribed) }},
		Replica: env.Replica, Store: store.NewLongConn(env.Store), HolderTTL: store.HolderTTL, RenewEvery: store.HolderRenewEvery,
		Welcome: cfg.WeCom.AIBot.Welcome, Log: env.Log,
	})
	if err != nil {
		return nil, fmt.Errorf("wecom.aibot: %w", err)
	}
	hosts, err := allowedHosts(cfg)
	if err != nil {
		return nil, err
	}
	lcChan = longconn.NewChannel(conn, env.Log)
	lcChan.Media = mediaFetcher(cfg, hosts)
	return &channel{name: aibotName, bot: lcChan,
		// Callbacks only arrive once Run has subscribed, after attach.
		attach: func(e *bot.Engine) error { callbacks = lcChan.Handler(e); return nil },
		run:    conn.Run,
		close:  lcChan.Close,
		status: func() (bool, string) {
			ready, state := conn.Status()
			return ready, "longconn " + state
		},
		started: "wecom aibot long connection", startedAttrs: []any{"ws_url", cfg.WeCom.AIBot.WSURL},
	}, nil
}
