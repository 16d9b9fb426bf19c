package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wecodex/wecodex/configs"
)

// Check is a check of a loaded config beyond configs.Check's, one that
// needs a package configs does not import (a cron parser, say).
type Check func(*configs.Config) configs.Problems

// LoadConfig loads and checks the config file (configs.Check, then checks)
// and resolves the Codex binary (ResolveCodexBin). When --config was not
// given and the default file is missing (wecodex run from another
// directory), it falls back to the defaults and the environment rather
// than refusing to start. path is the file read, "" for none.
func LoadConfig(f ConfigFlags, checks ...Check) (cfg *configs.Config, warns []configs.Warning, path string, err error) {
	path = f.Path
	if !f.Explicit {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			path = ""
		}
	}
	cfg, warns, err = configs.Check(path)
	ResolveCodexBin(cfg)
	if cfg != nil {
		for _, check := range checks {
			err = WithProblems(err, check(cfg))
		}
	}
	return cfg, warns, path, err
}

// Loaded is a validated config and where it came from.
type Loaded struct {
	*configs.Config
	Path     string // "" when no file was read
	Warnings []configs.Warning
}

// LoadValid loads and checks the config for "wecodex name", a command that
// runs something and has --config as its only flag, printing the warnings
// and every problem to stderr when there is one. When ok is false the
// command must stop and exit with code.
func LoadValid(name string, args []string, stderr io.Writer, checks ...Check) (lc Loaded, code int, ok bool) {
	f, err := ParseConfigFlags(name, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return lc, ExitOK, false // --help was asked for and printed
	}
	if err != nil {
		return lc, ExitUsage, false
	}
	return LoadChecked(name, f, stderr, checks...)
}

// LoadChecked is LoadValid for flags already parsed (a command with flags
// of its own).
func LoadChecked(name string, f ConfigFlags, stderr io.Writer, checks ...Check) (lc Loaded, code int, ok bool) {
	cfg, warns, path, err := LoadConfig(f, checks...)
	var ps configs.Problems
	switch {
	case errors.As(err, &ps):
		PrintWarnings(stderr, warns)
		fmt.Fprintf(stderr, "wecodex %s: invalid config %s:\n", name, DescribePath(path))
		PrintProblems(stderr, ps)
		return lc, ExitError, false
	case err != nil:
		fmt.Fprintf(stderr, "wecodex %s: %v\n", name, err)
		return lc, ExitError, false
	}
	return Loaded{Config: cfg, Path: path, Warnings: warns}, ExitOK, true
}

// DescribePath names where a config came from in a message.
func DescribePath(path string) string {
	if path == "" {
		return "(defaults and WECODEX_* environment; no file)"
	}
	return path
}

// PrintWarnings writes one "warning:" line per warning.
func PrintWarnings(w io.Writer, warns []configs.Warning) {
	for _, wr := range warns {
		fmt.Fprintf(w, "warning: %s\n", wr)
	}
}

// PrintProblems writes one "error:" line per problem.
func PrintProblems(w io.Writer, ps configs.Problems) {
	for _, p := range ps {
		fmt.Fprintf(w, "error: %s\n", p)
	}
}

// WithProblems adds more to err's Problems (err may be nil); an error that
// is not Problems stays as it is.
func WithProblems(err error, more configs.Problems) error {
	if len(more) == 0 {
		return err
	}
	var ps configs.Problems
	if err != nil && !errors.As(err, &ps) {
		return err
	}
	return append(ps, more...)
}
