package main

import (
	"fmt"
	"io"

	"github.com/wecodex/wecodex/configs"
)

// cmdCheckConfig validates a config file: warnings and every error on stderr,
// "config OK" on stdout, exit 1 on any error.
func cmdCheckConfig(args []string, stdout, stderr io.Writer) int {
	f, err := parseConfigFlags("check-config", args, stderr)
	if err != nil {
		return exitUsage
	}
	cfg, warns, err := configs.Load(f.path)
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	if err := cfg.Validate(); err != nil {
		printProblems(stderr, err)
		fmt.Fprintf(stderr, "%s: config has errors\n", f.path)
		return exitError
	}
	fmt.Fprintln(stdout, "config OK")
	return exitOK
}
