package bot

import (
	"errors"
	"os/exec"

	"github.com/wecodex/wecodex/acpbridge"
)

// What a failed turn's card says: one sentence per kind of failure (set by
// the adapter that saw it, acpbridge.Error) or, for a failure no adapter
// knew, per step of the turn that failed. The sentence is for the person in
// the chat (often the admin trying the bot, who is told what to do);
// paths, ids and the raw error go to the log only (turnRunner.run).
const (
	textAgentMissing     = "The agent is not installed on the bot's server: an admin installs Codex (`make codex` in a wecodex checkout, or `npm install -g @openai/codex`) or sets agent.codex.bin (agent.acp.command for another ACP agent)."
	textAgentLogin       = "The agent is not logged in to its model provider: an admin runs `wecodex codex-login` on the bot's server (add `--with-api-key` to give a key on stdin) or configures a model provider with an API key in agent.codex.config."
	textAgentUnreachable = "The agent cannot reach its model provider: an admin checks the bot server's network and proxy (HTTPS_PROXY in wecodex's environment) and the provider's base_url in agent.codex.config."
	textAgentCrashed     = "The agent stopped unexpectedly and was restarted; send the message again."
	textAgentHung        = "The agent stopped answering and was restarted; send the message again."
	textStartFailed      = "The agent could not start a session for this conversation; send the message again, and if it fails again an admin reads the bot's log."
	textResumeFailed     = "The agent could not resume this conversation's session; send the message again, and if it fails again an admin reads the bot's log."
	textTurnFailed       = "The agent could not finish this turn; send the message again, and if it fails again an admin reads the bot's log."
)

// turnStep is the step of a turn an error came from.
type turnStep int

const (
	stepPrompt       turnStep = iota // the agent ran (or refused) the turn
	stepStartSession                 // the workspace or a new session
	stepResume                       // resuming the recorded session
)

// stepError marks err with the step of the turn it came from.
type stepError struct {
	step turnStep
	err  error
}

func (e *stepError) Error() string { return e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// failureText is the card's one sentence for a turn that failed with err.
func failureText(err error) string {
	kind := acpbridge.KindOf(err)
	if errors.Is(err, exec.ErrNotFound) {
		kind = acpbridge.KindNotInstalled // a PATH lookup that failed before any adapter saw it
	}
	switch kind {
	case acpbridge.KindNotInstalled:
		return textAgentMissing
	case acpbridge.KindNotAuthenticated:
		return textAgentLogin
	case acpbridge.KindProviderUnreachable:
		return textAgentUnreachable
	case acpbridge.KindCrashed:
		return textAgentCrashed
	case acpbridge.KindHung:
		return textAgentHung
	}
	// The kind decides, not the words: a 401 in an error no adapter marked
	// is not read as a login problem.
	var se *stepError
	if errors.As(err, &se) {
		switch se.step {
		case stepStartSession:
			return textStartFailed
		case stepResume:
			return textResumeFailed
		}
	}
	return textTurnFailed
}
