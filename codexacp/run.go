package codexacp

import (
	"context"
	"io"
	"log/slog"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	acpserve "github.com/wecodex/wecodex/acpbridge/serve"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
)

// Run serves the built-in Codex bridge as an ACP agent over stdin and
// stdout until ctx ends or the client disconnects: a drop-in replacement for
// @agentclientprotocol/codex-acp that sends commentary as thoughts.
//
// Approvals are the ACP client's to decide (agent.approval is the bot's
// policy, not this command's): the sink of each turn is the client's side of
// the session, so Codex's requests go to the client as
// session/request_permission. Phases stay in memory: one process serves one
// client, and the app-server it starts lives and dies with it.
func Run(ctx context.Context, cfg *configs.Config, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	c := cfg.Agent.Codex
	env, err := cli.CodexEnv(c)
	if err != nil {
		return err
	}
	// One user, the operator, in an editor: as a drop-in for codex-acp it
	// passes Codex the operator's whole environment, as `codex` would have.
	agent := codex.New(codex.Options{
		Bin:             c.Bin,
		Config:          c.Config,
		Env:             env,
		InheritEnv:      true,
		Sandbox:         c.Sandbox,
		ApprovalPolicy:  c.ApprovalPolicy,
		Logger:          log,
		FailInterrupted: !c.ContinueInterrupted,
		IdleUnload:      c.IdleUnload,
	})
	defer agent.Close()
	return acpserve.ServeACP(ctx, agent, stdin, stdout, log, acpserve.Options{Version: cli.Version, Mode: sandboxMode(c.Sandbox)})
}

// sandboxMode is the session mode agent.codex.sandbox amounts to, the mode
// an editor's session starts in.
func sandboxMode(sandbox string) acpbridge.Mode {
	switch sandbox {
	case "read-only":
		return acpbridge.ModeReadOnly
	case "danger-full-access":
		return acpbridge.ModeFull
	}
	return acpbridge.DefaultMode
}
