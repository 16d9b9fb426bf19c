// Command wecodex runs the wecodex bot and its tools. It only wires the
// packages together; each subcommand lives in its own file.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/codexacp"
)

const usage = `wecodex: a WeCom bot that drives the Codex coding agent

Usage:
  wecodex serve        [--config PATH]  run the bot's HTTP server
  wecodex codex-acp    [--config PATH]  serve Codex as an ACP agent on stdio
  wecodex check-config [--config PATH] [--strict]  validate a config file and print what serve would warn about; exit 1 on any error (--strict: any warning)
  wecodex codex-login  [--config PATH] [ARGS]  run "codex login ARGS" with the bot's CODEX_HOME
  wecodex sessions     [--config PATH] [--conversation KEY] [--project NAME]  list conversations and the command that continues each in a terminal
  wecodex audit        [--config PATH] [--since AGE] [--user U] [--conversation K] [--kind K] [--table]  print the audit trail
  wecodex usage        [--config PATH] [--since AGE]  turns, tokens and approvals per user and project (default the last 7d)
  wecodex purge        [--config PATH] --user U  remove a user's conversations, threads, workspaces and audit records
  wecodex version                       print the version

--config defaults to ` + cli.DefaultConfigPath + `. Any key can be overridden by an
environment variable: WECODEX_ + the key upper-cased, dots as underscores
(redis.addr -> WECODEX_REDIS_ADDR).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return cli.ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return cmdServe(rest, stderr)
	case "codex-acp":
		// The lean binary beside wecodex serves it when it can (codexacp.Exec).
		return codexacp.Main(rest, stdin, stdout, stderr, codexacp.Exec(rest))
	case "codex-login":
		return cmdCodexLogin(rest, stdin, stdout, stderr)
	case "check-config":
		return cmdCheckConfig(rest, stdout, stderr)
	case "sessions":
		return cmdSessions(rest, stdout, stderr)
	case "audit":
		return cmdAudit(rest, stdout, stderr)
	case "usage":
		return cmdUsage(rest, stdout, stderr)
	case "purge":
		return cmdPurge(rest, stdout, stderr)
	case "version":
		return cmdVersion(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		// Asked for: the answer, on stdout, and success.
		fmt.Fprint(stdout, usage)
		return cli.ExitOK
	default:
		fmt.Fprintf(stderr, "wecodex: unknown command %q\n\n%s", cmd, usage)
		return cli.ExitUsage
	}
}
