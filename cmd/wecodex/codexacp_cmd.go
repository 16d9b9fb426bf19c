package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// cmdCodexACP runs runCodexACP (codexacp.go) with the process's stdio. Logs go
// to stderr because stdout carries the protocol.
func cmdCodexACP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	lc, code, ok := loadValidConfig("codex-acp", args, stderr)
	if !ok {
		return code
	}
	log := newLogger(lc.Log, stderr)
	logWarnings(log, lc.path, lc.warnings)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runCodexACP(ctx, lc.Config, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "wecodex codex-acp: %v\n", err)
		return exitError
	}
	return exitOK
}
