package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/wecodex/wecodex/configs"
)

// cmdCheckConfig checks a config file as serve would: warnings and every
// error on stderr, "config OK" on stdout, exit 1 on any error.
func cmdCheckConfig(args []string, stdout, stderr io.Writer) int {
	f, err := parseConfigFlags("check-config", args, stderr)
	if err != nil {
		return exitUsage
	}
	f.explicit = true // check the file named (or the default), never fall back
	_, warns, _, err := loadConfig(f)
	printWarnings(stderr, warns)
	var ps configs.Problems
	switch {
	case errors.As(err, &ps):
		printProblems(stderr, ps)
		fmt.Fprintf(stderr, "%s: config has errors\n", f.path)
		return exitError
	case err != nil:
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	fmt.Fprintln(stdout, "config OK")
	return exitOK
}
