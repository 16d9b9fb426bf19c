package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// DefaultConfigPath is --config's default, relative to the working directory.
const DefaultConfigPath = "configs/wecodex.yaml"

// Exit codes every command uses.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// ConfigFlags is a command's --config flag.
type ConfigFlags struct {
	Path     string
	Explicit bool // --config was given
}

// AddTo registers --config on fs.
func (f *ConfigFlags) AddTo(fs *flag.FlagSet) {
	fs.StringVar(&f.Path, "config", DefaultConfigPath, "`PATH` of the YAML config file")
}

// Seen records, after fs was parsed, whether --config was given.
func (f *ConfigFlags) Seen(fs *flag.FlagSet) {
	fs.Visit(func(fl *flag.Flag) { f.Explicit = f.Explicit || fl.Name == "config" })
}

// ParseConfigFlags parses the flags of "wecodex name" that has --config
// only, and rejects positional arguments.
func ParseConfigFlags(name string, args []string, stderr io.Writer) (ConfigFlags, error) {
	fs := flag.NewFlagSet("wecodex "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f ConfigFlags
	f.AddTo(fs)
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if err := NoArgs(name, fs, stderr); err != nil {
		return f, err
	}
	f.Seen(fs)
	return f, nil
}

// NoArgs rejects the positional arguments left on a parsed fs, printing
// which and the usage to stderr.
func NoArgs(name string, fs *flag.FlagSet, stderr io.Writer) error {
	if fs.NArg() == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "wecodex %s: unexpected argument %q\n", name, fs.Arg(0))
	fs.Usage()
	return errors.New("unexpected argument")
}
