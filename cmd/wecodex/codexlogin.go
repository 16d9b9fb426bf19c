package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/wecodex/wecodex/childenv"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
)

// cmdCodexLogin runs `codex login` (agent.codex.bin) with the bot's own
// CODEX_HOME, so the login lands where the bot's Codex looks for it and not
// in the operator's ~/.codex. Everything after an optional leading --config
// PATH goes to `codex login` as it is (--with-api-key, --device-auth, ...).
// The agent's config is all it needs, so only problems with agent.* keys
// stop it: an admin can log Codex in before WeCom is set up.
func cmdCodexLogin(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, rest := splitConfigFlag(args)
	cfg, _, path, err := cli.LoadConfig(f, checkSchedules)
	if err = agentProblems(cfg, err); err != nil {
		fmt.Fprintf(stderr, "wecodex codex-login: %v\n", err)
		return cli.ExitError
	}
	env, err := cli.CodexEnv(cfg.Agent.Codex)
	if err != nil {
		fmt.Fprintf(stderr, "wecodex codex-login: %v\n", err)
		return cli.ExitError
	}
	// Said before Codex runs: the CODEX_HOME the service must use too.
	fmt.Fprintf(stderr, "wecodex codex-login: logging %s in with %s (config %s)\n", cfg.Agent.Codex.Bin, env[0], cli.DescribePath(path))
	cmd := exec.Command(cfg.Agent.Codex.Bin, append([]string{"login"}, rest...)...)
	// The allow-listed environment the bot's Codex gets: what the login
	// needs (HOME, proxies, CA certificates), never wecodex's secrets.
	cmd.Env = append(childenv.Inherit(nil, "codex login"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(stderr, "wecodex codex-login: run %s login: %v (install the pinned Codex with `make codex`, or set agent.codex.bin)\n", cfg.Agent.Codex.Bin, err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// splitConfigFlag takes a leading --config PATH (or --config=PATH) off args.
func splitConfigFlag(args []string) (cli.ConfigFlags, []string) {
	f := cli.ConfigFlags{Path: cli.DefaultConfigPath}
	switch {
	case len(args) >= 2 && (args[0] == "--config" || args[0] == "-config"):
		f.Path, f.Explicit, args = args[1], true, args[2:]
	case len(args) >= 1 && (strings.HasPrefix(args[0], "--config=") || strings.HasPrefix(args[0], "-config=")):
		f.Path, f.Explicit, args = args[0][strings.Index(args[0], "=")+1:], true, args[1:]
	}
	return f, args
}

// agentProblems keeps of a config check's error what concerns the agent:
// an unreadable file, or a problem with an agent.* key.
func agentProblems(cfg *configs.Config, err error) error {
	var ps configs.Problems
	if cfg == nil || !errors.As(err, &ps) {
		return err
	}
	var agent configs.Problems
	for _, p := range ps {
		if strings.HasPrefix(p.Key, "agent.") {
			agent = append(agent, p)
		}
	}
	if len(agent) == 0 {
		return nil
	}
	return agent
}
