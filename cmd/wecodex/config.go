package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wecodex/wecodex/configs"
)

// loadConfig loads and checks the config file (configs.Check). When --config
// was not given and the default file is missing (wecodex run from another
// directory), it falls back to the defaults and the environment rather than
// refusing to start.
func loadConfig(f configFlags) (*configs.Config, []configs.Warning, string, error) {
	path := f.path
	if !f.explicit {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			path = ""
		}
	}
	cfg, warns, err := configs.Check(path)
	resolveCodexBin(cfg)
	if cfg != nil {
		err = withProblems(err, checkSchedules(cfg))
	}
	return cfg, warns, path, err
}

// loadedConfig is a validated config and where it came from.
type loadedConfig struct {
	*configs.Config
	path     string // "" when no file was read
	warnings []configs.Warning
}

// loadValidConfig loads and checks the config for a command that runs
// something, printing the warnings and every problem to stderr when there is
// one. When ok is false the command must stop and exit with code.
func loadValidConfig(name string, args []string, stderr io.Writer) (lc loadedConfig, code int, ok bool) {
	f, err := parseConfigFlags(name, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return lc, exitOK, false // --help was asked for and printed
	}
	if err != nil {
		return lc, exitUsage, false
	}
	return loadCheckedConfig(name, f, stderr)
}

// loadCheckedConfig is loadValidConfig for flags already parsed (a
// subcommand with flags of its own).
func loadCheckedConfig(name string, f configFlags, stderr io.Writer) (lc loadedConfig, code int, ok bool) {
	cfg, warns, path, err := loadConfig(f)
	var ps configs.Problems
	switch {
	case errors.As(err, &ps):
		printWarnings(stderr, warns)
		fmt.Fprintf(stderr, "wecodex %s: invalid config %s:\n", name, describePath(path))
		printProblems(stderr, ps)
		return lc, exitError, false
	case err != nil:
		fmt.Fprintf(stderr, "wecodex %s: %v\n", name, err)
		return lc, exitError, false
	}
	return loadedConfig{Config: cfg, path: path, warnings: warns}, exitOK, true
}

func describePath(path string) string {
	if path == "" {
		return "(defaults and WECODEX_* environment; no file)"
	}
	return path
}

func printWarnings(w io.Writer, warns []configs.Warning) {
	for _, wr := range warns {
		fmt.Fprintf(w, "warning: %s\n", wr)
	}
}

func printProblems(w io.Writer, ps configs.Problems) {
	for _, p := range ps {
		fmt.Fprintf(w, "error: %s\n", p)
	}
}

// withProblems adds more to err's Problems (err may be nil); an error that
// is not Problems stays as it is.
func withProblems(err error, more configs.Problems) error {
	if len(more) == 0 {
		return err
	}
	var ps configs.Problems
	if err != nil && !errors.As(err, &ps) {
		return err
	}
	return append(ps, more...)
}
