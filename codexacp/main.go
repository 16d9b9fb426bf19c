package codexacp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/wecodex/wecodex/cli"
)

// Main is `wecodex codex-acp ARGS` with the process's stdio: it loads the
// config, then serves one ACP client until it disconnects or a signal
// comes, and returns the exit code. Logs go to stderr because stdout
// carries the protocol. notLean, when not nil, is why a lean binary beside
// wecodex could not serve the session (Exec); it is logged as a warning.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, notLean error) int {
	lc, code, ok := cli.LoadValid("codex-acp", args, stderr)
	if !ok {
		return code
	}
	log := cli.NewLogger(lc.Log, stderr)
	cli.LogWarnings(log, lc.Path, lc.Warnings)
	if notLean != nil {
		log.Warn("codex-acp: serving in this process: " + notLean.Error())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, lc.Config, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "wecodex codex-acp: %v\n", err)
		return cli.ExitError
	}
	return cli.ExitOK
}
