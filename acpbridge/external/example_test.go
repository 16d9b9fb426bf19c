package external_test

import (
	"context"
	"fmt"
	"os"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
)

// printSink prints what a turn delivers; it is the turn's client side, so
// it also decides what the agent asks (here: nothing is allowed).
type printSink struct{}

func (printSink) Update(u acp.SessionUpdate) {
	switch {
	case u.AgentThoughtChunk != nil:
		fmt.Println("thought:", u.AgentThoughtChunk.Content.Text.Text)
	case u.AgentMessageChunk != nil:
		fmt.Println("message:", u.AgentMessageChunk.Content.Text.Text)
	}
}
func (printSink) Notice(n acpbridge.Notice) { fmt.Println("notice:", n.Text) }
func (printSink) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Policy(acpbridge.ApprovalDeny).Decide(req)
}

// An ACP agent subprocess as an acpbridge.Agent. The command here is this
// test binary serving a tiny in-repo agent with serve.ServeACP (see
// echo_test.go); in wecodex it is agent.acp.command, e.g. `wecodex codex-acp`.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "wecodex-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	a, err := external.New(ctx, external.Options{
		Command: []string{os.Args[0]},
		Env:     map[string]string{"WECODEX_TEST_ECHO_AGENT": "1"},
	})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	id, err := a.NewSession(ctx, dir)
	if err != nil {
		panic(err)
	}
	stop, err := a.Prompt(ctx, id, acpbridge.TextPrompt("why is the sky blue?"), printSink{})
	if err != nil {
		panic(err)
	}
	fmt.Println("stop:", stop)
	// Output:
	// thought: Reading the question.
	// message: answer to: why is the sky blue?
	// stop: end_turn
}
