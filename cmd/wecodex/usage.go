package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/cli"
)

// cmdUsage prints who used how much since --since (default a week): turns,
// tokens and approvals per user and per project, from the audit trail.
func cmdUsage(args []string, stdout, stderr io.Writer) int {
	f, err := parseAuditFlags("usage", args, "7d", stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cli.ExitOK
	}
	if err != nil {
		return cli.ExitUsage
	}
	rp := audit.NewReport()
	if err := readAudit(f, stderr, rp.Add); err != nil {
		fmt.Fprintf(stderr, "wecodex usage: %v\n", err)
		return cli.ExitError
	}
	if err := rp.Write(stdout); err != nil {
		fmt.Fprintf(stderr, "wecodex usage: %v\n", err)
		return cli.ExitError
	}
	return cli.ExitOK
}
