// Command wecodex-demo is `make demo`: `wecodex serve` with the local config
// (embedded Redis, the playground on) and Codex pointed at a bundled scripted
// model, so a whole turn — commentary, a real command, the answer — runs with
// no account and no network. It prints the playground's URL and runs until
// interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/wecodex/wecodex/internal/demo"
)

func main() {
	wecodex := flag.String("wecodex", "bin/wecodex", "the wecodex binary (make build)")
	codex := flag.String("codex", ".tools/codex/node_modules/.bin/codex", "the codex binary (make codex)")
	config := flag.String("config", "configs/wecodex.yaml", "the config file to serve with")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := demo.Start(ctx, demo.Options{Wecodex: *wecodex, Codex: *codex, Config: *config, Logs: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "wecodex-demo:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "\n  wecodex demo: open %s\n  Codex answers from a scripted model (no account, no network).\n"+
		"  Any message gets commentary, a real `%s` and an answer; a message with %q streams slowly so /stop can cut it.\n"+
		"  Ctrl-C stops it.\n\n", d.URL, demo.Command, demo.LongWord)
	code := 0
	select {
	case <-ctx.Done():
	case <-d.Exited():
		fmt.Fprintln(os.Stderr, "wecodex-demo: wecodex serve exited:", d.Err())
		code = 1
	}
	if err := d.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "wecodex-demo:", err)
		code = 1
	}
	os.Exit(code)
}
