package bot

import (
	"errors"
	"os/exec"

	"github.com/wecodex/wecodex/acpbridge"
)

// What a card says when a turn fails because the agent is not set up, in
// front of the raw error: the person who sees the card is often the admin
// trying the bot for the first time (in the playground), and "exec: not
// found" or "401 Unauthorized" alone does not say what to do. Each is one
// line: the card's status shows it once, whatever Codex retried.
const (
	textAgentMissing     = "The agent is not installed on the bot's server. An admin installs Codex (`make tools` in a wecodex checkout, or `npm install -g @openai/codex`) or sets agent.codex.bin (agent.acp.command for another ACP agent)."
	textAgentLogin       = "The agent is not logged in: its model provider answered 401 Unauthorized. An admin runs `codex login` on the bot's server for the bot's own CODEX_HOME with `wecodex codex-login` (add `--with-api-key` to give a key on stdin), or configures a model provider with an API key (agent.codex.config)."
	textAgentUnreachable = "The agent cannot reach its model provider. An admin checks the bot server's network and proxy (HTTPS_PROXY in wecodex's environment) and the provider's base_url in agent.codex.config."
)

// setupError is an agent failure with the setup step that fixes it.
type setupError struct {
	hint string
	err  error
}

func (e *setupError) Error() string { return e.hint + " (" + e.err.Error() + ")" }
func (e *setupError) Unwrap() error { return e.err }

// explainAgentFailure puts what an admin must do in front of an agent error
// whose kind (set by the adapter that saw it, acpbridge.Error) means the
// agent is not set up or cannot work. Other errors are returned as they
// are: a crash already says in one line what happened and what to do
// ("codex app-server exited: signal: killed; send the message again"), its
// stderr going to the log only.
func explainAgentFailure(err error) error {
	if err == nil {
		return nil
	}
	kind := acpbridge.KindOf(err)
	if errors.Is(err, exec.ErrNotFound) {
		kind = acpbridge.KindNotInstalled // a PATH lookup that failed before any adapter saw it
	}
	hint := ""
	switch kind {
	case acpbridge.KindNotInstalled:
		hint = textAgentMissing
	case acpbridge.KindNotAuthenticated:
		hint = textAgentLogin
	case acpbridge.KindProviderUnreachable:
		hint = textAgentUnreachable
	default:
		return err
	}
	return &setupError{hint: hint, err: err}
}
