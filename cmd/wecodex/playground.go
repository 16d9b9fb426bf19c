package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/internal/playground"
)

// mountPlayground mounts the local playground under /playground when
// cfg.Playground.Enabled, and does nothing (returning a no-op close) otherwise.
//
// The playground never talks to the bot engine directly: its backend plays
// WeCom (wecomtest), signing and encrypting callbacks to this server's own
// AI-bot endpoint, baseURL + cfg.WeCom.AIBot.Path, and following each stream
// with refresh callbacks. baseURL is how this process reaches itself, e.g.
// "http://127.0.0.1:8080" — use selfURL on the listener's address, so listen
// before mounting. It logs the playground's URL.
//
// The returned stop ends the playground backend (the streams it follows and
// its response_url server); call it after the HTTP server has shut down.
//
// pg is the playground startLongConnPlayground made, if it did; mounting
// hands its Close to stop.
func mountPlayground(mux *http.ServeMux, cfg *configs.Config, baseURL string, pg *playground.Playground, log *slog.Logger) (stop func() error, err error) {
	if !cfg.Playground.Enabled {
		return func() error { return nil }, nil
	}
	base := strings.TrimRight(baseURL, "/")
	if pg != nil {
		mountHandler(mux, pg, base, cfg.Playground.User, log)
		return pg.Close, nil
	}
	pg, err = playground.New(playground.Config{
		Endpoint:       base + cfg.WeCom.AIBot.Path,
		Token:          cfg.WeCom.AIBot.Token,
		EncodingAESKey: cfg.WeCom.AIBot.EncodingAESKey,
		AIBotID:        cfg.WeCom.AIBot.BotID,
		User:           cfg.Playground.User,
		Logger:         log,
	})
	if err != nil {
		return nil, fmt.Errorf("start playground (playground.*, wecom.aibot.token, wecom.aibot.encoding_aes_key): %w", err)
	}
	mountHandler(mux, pg, base, cfg.Playground.User, log)
	return pg.Close, nil
}

func mountHandler(mux *http.ServeMux, pg *playground.Playground, base, user string, log *slog.Logger) {
	h := pg.Handler()
	mux.Handle(playground.Path, h)
	mux.Handle(playground.Path+"/", h)
	log.Info("playground: open it in a browser", "url", base+playground.Path, "user", user)
}

// startLongConnPlayground starts the playground before the bot when it
// plays WeCom's long-connection server (wecom.aibot.mode longconn): the bot
// dials it, so wecom.aibot.ws_url in the returned cfg is its loopback URL.
// It returns cfg and a nil playground in any other case.
func startLongConnPlayground(cfg *configs.Config, log *slog.Logger) (*configs.Config, *playground.Playground, error) {
	if !cfg.Playground.Enabled || cfg.WeCom.AIBot.Mode != configs.AIBotLongConn {
		return cfg, nil, nil
	}
	pg, err := playground.New(playground.Config{
		LongConn: true, AIBotID: cfg.WeCom.AIBot.BotID, Secret: cfg.WeCom.AIBot.Secret,
		User: cfg.Playground.User, Logger: log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("start playground (playground.*, wecom.aibot.bot_id, wecom.aibot.secret): %w", err)
	}
	c := *cfg
	c.WeCom.AIBot.WSURL = pg.WSURL()
	log.Info("playground: playing WeCom's long-connection server", "ws_url", c.WeCom.AIBot.WSURL)
	return &c, pg, nil
}

// selfURL is the base URL this process reaches its own listener at: a
// wildcard listen address (":8080", "0.0.0.0:8080", "[::]:8080") is dialled
// on loopback.
func selfURL(addr net.Addr) string {
	host, port := "127.0.0.1", ""
	if tcp, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(tcp.Port)
		if tcp.IP != nil && !tcp.IP.IsUnspecified() {
			host = tcp.IP.String()
		}
	} else if h, p, err := net.SplitHostPort(addr.String()); err == nil {
		port = p
		if ip := net.ParseIP(h); ip != nil && !ip.IsUnspecified() {
			host = h
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}
