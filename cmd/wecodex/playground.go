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
func mountPlayground(mux *http.ServeMux, cfg *configs.Config, baseURL string, log *slog.Logger) (stop func() error, err error) {
	if !cfg.Playground.Enabled {
		return func() error { return nil }, nil
	}
	base := strings.TrimRight(baseURL, "/")
	pg, err := playground.New(playground.Config{
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
	h := pg.Handler()
	mux.Handle(playground.Path, h)
	mux.Handle(playground.Path+"/", h)
	log.Info("playground: open it in a browser", "url", base+playground.Path, "user", cfg.Playground.User)
	return pg.Close, nil
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
