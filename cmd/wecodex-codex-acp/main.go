// Command wecodex-codex-acp is `wecodex codex-acp` alone: Codex served as
// an ACP agent on stdio, in a binary that links only the bridge and the
// config loader, so an editor's bridge process stays small. wecodex hands
// its codex-acp sessions to it when it sits beside wecodex (package
// codexacp).
package main

import (
	"os"

	"github.com/wecodex/wecodex/codexacp"
)

func main() {
	os.Exit(codexacp.LeanMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
