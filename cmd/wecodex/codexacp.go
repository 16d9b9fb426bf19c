package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/wecodex/wecodex/configs"
)

// runCodexACP serves the built-in Codex bridge as an ACP agent over stdin and
// stdout until ctx ends or the client disconnects.
func runCodexACP(ctx context.Context, cfg *configs.Config, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	return errors.New("codex-acp: not implemented yet")
}
