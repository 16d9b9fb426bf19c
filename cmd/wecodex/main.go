// Command wecodex runs the wecodex bot and its tools. It only wires the
// packages together; each subcommand lives in its own file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/wecodex/wecodex/configs"
)

const usage = `wecodex: a WeCom bot that drives the Codex coding agent

Usage:
  wecodex serve        [--config PATH]  run the bot's HTTP server
  wecodex codex-acp    [--config PATH]  serve Codex as an ACP agent on stdio
  wecodex check-config [--config PATH]  validate a config file; exit 1 on any error
  wecodex codex-login  [--config PATH] [ARGS]  run "codex login ARGS" with the bot's CODEX_HOME
  wecodex version                       print the version

--config defaults to ` + defaultConfigPath + `. Any key can be overridden by an
environment variable: WECODEX_ + the key upper-cased, dots as underscores
(redis.addr -> WECODEX_REDIS_ADDR).
`

const defaultConfigPath = "configs/wecodex.yaml"

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return cmdServe(rest, stderr)
	case "codex-acp":
		return cmdCodexACP(rest, stdin, stdout, stderr)
	case "codex-login":
		return cmdCodexLogin(rest, stdin, stdout, stderr)
	case "check-config":
		return cmdCheckConfig(rest, stdout, stderr)
	case "version":
		return cmdVersion(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stderr, usage)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "wecodex: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

// configFlags parses a subcommand's flags (only --config) and rejects
// positional arguments.
type configFlags struct {
	path     string
	explicit bool // --config was given
}

func parseConfigFlags(name string, args []string, stderr io.Writer) (configFlags, error) {
	fs := flag.NewFlagSet("wecodex "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f configFlags
	fs.StringVar(&f.path, "config", defaultConfigPath, "`PATH` of the YAML config file")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wecodex %s: unexpected argument %q\n", name, fs.Arg(0))
		fs.Usage()
		return f, errors.New("unexpected argument")
	}
	fs.Visit(func(fl *flag.Flag) { f.explicit = f.explicit || fl.Name == "config" })
	return f, nil
}

// loadConfig loads the config file. When --config was not given and the
// default file is missing (wecodex run from another directory), it falls back
// to the defaults and the environment rather than refusing to start.
func loadConfig(f configFlags) (*configs.Config, []configs.Warning, string, error) {
	path := f.path
	if !f.explicit {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			path = ""
		}
	}
	cfg, warns, err := configs.Load(path)
	return cfg, warns, path, err
}

// loadedConfig is a validated config and where it came from.
type loadedConfig struct {
	*configs.Config
	path     string // "" when no file was read
	warnings []configs.Warning
}

// loadValidConfig loads and validates the config for a command that runs
// something, printing every problem to stderr. When ok is false the command
// must stop and exit with code.
func loadValidConfig(name string, args []string, stderr io.Writer) (lc loadedConfig, code int, ok bool) {
	f, err := parseConfigFlags(name, args, stderr)
	if err != nil {
		return lc, exitUsage, false
	}
	cfg, warns, path, err := loadConfig(f)
	if err != nil {
		fmt.Fprintf(stderr, "wecodex %s: %v\n", name, err)
		return lc, exitError, false
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "wecodex %s: invalid config %s:\n", name, describePath(path))
		printProblems(stderr, err)
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

func printProblems(w io.Writer, err error) {
	var ps configs.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Fprintf(w, "error: %s\n", p)
		}
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}
