package bot

import (
	"errors"
	"io/fs"
	"os/exec"
	"strings"
)

// What a card says when a turn fails because the agent is not set up, in
// front of the raw error: the person who sees the card is often the admin
// trying the bot for the first time (in the playground), and "exec: not
// found" or "401 Unauthorized" alone does not say what to do.
const (
	textAgentMissing = "The agent is not installed on the bot's server. An admin installs Codex (`make tools` in a wecodex checkout, or `npm install -g @openai/codex`) or sets agent.codex.bin (agent.acp.command for another ACP agent)."
	textAgentLogin   = "The agent is not logged in: its model provider answered 401 Unauthorized. An admin runs `codex login` on the bot's server as the user running wecodex, or configures a model provider with an API key (agent.codex.config)."
)

// setupError is an agent failure with the setup step that fixes it.
type setupError struct {
	hint string
	err  error
}

func (e *setupError) Error() string { return e.hint + " (" + e.err.Error() + ")" }
func (e *setupError) Unwrap() error { return e.err }

// explainAgentFailure puts what an admin must do in front of an agent error
// that means the agent is not set up: its program is missing, or its model
// provider refuses the credentials. Other errors are returned as they are.
func explainAgentFailure(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case errors.Is(err, exec.ErrNotFound),
		errors.Is(err, fs.ErrNotExist) && strings.Contains(msg, "start "),
		strings.Contains(msg, "executable file not found"):
		return &setupError{hint: textAgentMissing, err: err}
	case strings.Contains(msg, "401 Unauthorized"), strings.Contains(msg, "status 401"):
		return &setupError{hint: textAgentLogin, err: err}
	}
	return err
}
