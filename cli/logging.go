package cli

import (
	"io"
	"log/slog"

	"github.com/wecodex/wecodex/configs"
)

// NewLogger builds the process logger from log.level and log.format. Logs go
// to w (stderr): for codex-acp, stdout carries the protocol.
func NewLogger(c configs.LogConfig, w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Level)); err != nil {
		level = slog.LevelInfo // Validate rejects unknown levels; be safe anyway
	}
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func LogWarnings(log *slog.Logger, path string, warns []configs.Warning) {
	if path == "" {
		log.Info("no config file; using the defaults and WECODEX_* environment")
	}
	for _, w := range warns {
		log.Warn("config: "+w.Message, "key", w.Key, "file", path)
	}
}
