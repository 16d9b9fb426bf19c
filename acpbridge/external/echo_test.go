package external

import (
	"context"
	"fmt"
	"os"

	"github.com/wecodex/wecodex/acpbridge/serve"
	"github.com/wecodex/wecodex/internal/echoagent"
)

// echoAgentEnv, when set, turns the test binary into an ACP agent on stdio:
// echoagent served by serve.ServeACP, so the examples run a real subprocess
// agent without Codex.
const echoAgentEnv = "WECODEX_TEST_ECHO_AGENT"

func runEchoAgent() {
	if err := serve.ServeACP(context.Background(), &echoagent.Agent{}, os.Stdin, os.Stdout, nil, serve.Options{Version: "example"}); err != nil {
		fmt.Fprintln(os.Stderr, "echo agent:", err)
		os.Exit(1)
	}
}
