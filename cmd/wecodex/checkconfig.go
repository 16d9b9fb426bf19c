package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"

	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
)

// cmdCheckConfig checks a config file as serve would: warnings and every
// error on stderr, "config OK" on stdout, exit 1 on any error.
func cmdCheckConfig(args []string, stdout, stderr io.Writer) int {
	f, strict, err := parseCheckConfigFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	}
	if err != nil {
		return cli.ExitUsage
	}
	f.Explicit = true // check the file named (or the default), never fall back
	cfg, warns, _, err := cli.LoadConfig(f, checkSchedules)
	if err == nil {
		// What serve would warn about at start, from the same function.
		warns = append(warns, startWarnings(cfg, exec.LookPath)...)
		warns = append(warns, remoteWarnings(context.Background(), cfg)...)
	}
	cli.PrintWarnings(stderr, warns)
	var ps configs.Problems
	switch {
	case errors.As(err, &ps):
		cli.PrintProblems(stderr, ps)
		fmt.Fprintf(stderr, "%s: config has errors\n", f.Path)
		return cli.ExitError
	case err != nil:
		fmt.Fprintf(stderr, "error: %v\n", err)
		return cli.ExitError
	}
	if strict && len(warns) > 0 {
		fmt.Fprintf(stderr, "%s: %d warning(s) and --strict\n", f.Path, len(warns))
		return cli.ExitError
	}
	fmt.Fprintln(stdout, "config OK")
	return cli.ExitOK
}

// parseCheckConfigFlags is --config and --strict.
func parseCheckConfigFlags(args []string, stderr io.Writer) (cli.ConfigFlags, bool, error) {
	fs := flag.NewFlagSet("wecodex check-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := cli.ConfigFlags{}
	f.AddTo(fs)
	strict := fs.Bool("strict", false, "exit 1 on any warning too (for CI)")
	if err := fs.Parse(args); err != nil {
		return f, false, err
	}
	if err := cli.NoArgs("check-config", fs, stderr); err != nil {
		return f, false, err
	}
	return f, *strict, nil
}
