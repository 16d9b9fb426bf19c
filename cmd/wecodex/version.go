package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/wecodex/wecodex/cli"
)

func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "wecodex version: unexpected argument %q\n", args[0])
		return cli.ExitUsage
	}
	fmt.Fprintf(stdout, "wecodex %s%s %s %s/%s\n", cli.Version, cli.Revision(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return cli.ExitOK
}
