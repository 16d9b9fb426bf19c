package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/wecodex/wecodex/audit"
)

// cmdUsage prints who used how much since --since (default a week): turns,
// tokens and approvals per user and per project, from the audit trail.
func cmdUsage(args []string, stdout, stderr io.Writer) int {
	f, err := parseAuditFlags("usage", args, "7d", stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	rp := audit.NewReport()
	if err := readAudit(f, stderr, rp.Add); err != nil {
		fmt.Fprintf(stderr, "wecodex usage: %v\n", err)
		return exitError
	}
	if err := rp.Write(stdout); err != nil {
		fmt.Fprintf(stderr, "wecodex usage: %v\n", err)
		return exitError
	}
	return exitOK
}
