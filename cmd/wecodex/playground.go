package main

import (
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/wecodex/wecodex/configs"
)

// mountPlayground mounts the local playground under /playground when
// cfg.Playground.Enabled, and does nothing (returning a no-op close) otherwise.
//
// The playground never talks to the bot engine directly: its backend plays
// WeCom (wecomsim), signing and encrypting callbacks to this server's own
// AI-bot endpoint, baseURL + cfg.WeCom.AIBot.Path, and following each stream
// with refresh callbacks. baseURL is how this process reaches itself, e.g.
// "http://127.0.0.1:8080" — use selfURL on the listener's address, so listen
// before mounting.
//
// The returned close stops the playground backend (its response_url server
// and the streams it follows); call it after the HTTP server has shut down.
func mountPlayground(mux *http.ServeMux, cfg *configs.Config, baseURL string, log *slog.Logger) (close func() error, err error) {
	noop := func() error { return nil }
	if !cfg.Playground.Enabled {
		return noop, nil
	}
	// Filled in by the playground package (issue 7).
	_, _ = mux, baseURL
	log.Info("playground", "url", baseURL+"/playground", "user", cfg.Playground.User)
	return noop, nil
}

// selfURL is the base URL this process reaches its own listener at: a
// wildcard listen address (":8080", "0.0.0.0:8080", "[::]:8080") is dialled
// on loopback.
func selfURL(addr net.Addr) string {
	host, port := "127.0.0.1", ""
	if tcp, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(tcp.Port)
		if !tcp.IP.IsUnspecified() && tcp.IP != nil {
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
