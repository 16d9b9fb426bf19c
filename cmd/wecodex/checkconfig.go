package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"

	"github.com/wecodex/wecodex/configs"
)

// cmdCheckConfig checks a config file as serve would: warnings and every
// error on stderr, "config OK" on stdout, exit 1 on any error.
func cmdCheckConfig(args []string, stdout, stderr io.Writer) int {
	f, strict, err := parseCheckConfigFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	f.explicit = true // check the file named (or the default), never fall back
	cfg, warns, _, err := loadConfig(f)
	if err == nil {
		// What serve would warn about at start, from the same function.
		warns = append(warns, startWarnings(cfg, exec.LookPath)...)
		warns = append(warns, remoteWarnings(context.Background(), cfg)...)
	}
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
	if strict && len(warns) > 0 {
		fmt.Fprintf(stderr, "%s: %d warning(s) and --strict\n", f.path, len(warns))
		return exitError
	}
	fmt.Fprintln(stdout, "config OK")
	return exitOK
}

// parseCheckConfigFlags is --config and --strict.
func parseCheckConfigFlags(args []string, stderr io.Writer) (configFlags, bool, error) {
	fs := flag.NewFlagSet("wecodex check-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := configFlags{}
	fs.StringVar(&f.path, "config", defaultConfigPath, "`PATH` of the YAML config file")
	strict := fs.Bool("strict", false, "exit 1 on any warning too (for CI)")
	if err := fs.Parse(args); err != nil {
		return f, false, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wecodex check-config: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return f, false, errors.New("unexpected argument")
	}
	return f, *strict, nil
}
