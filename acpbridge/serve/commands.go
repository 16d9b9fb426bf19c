package serve

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// The slash commands serve handles itself, never sending them to the agent
// as a prompt; the client learns them from available_commands_update. They
// are the chat's names for the same settings (the bot's /mode, /model,
// /effort, /status), and /review and /compact when the agent can run them.
var settingCommands = []acp.AvailableCommand{
	{Name: "mode", Description: "Show or switch the session's mode: read-only, workspace or full.", Input: hint("read-only | workspace | full")},
	{Name: "model", Description: "Show the models or switch the session's.", Input: hint("model id")},
	{Name: "effort", Description: "Switch the session's reasoning effort.", Input: hint("low | medium | high")},
	{Name: "status", Description: "Show the session's mode, model and reasoning effort."},
}

// The agent's own turns a command starts, offered when the agent has them
// (the Codex bridge: review/start, thread/compact/start).
type (
	reviewer interface {
		Review(ctx context.Context, id acp.SessionId, instructions string, sink acpbridge.Sink) (acp.StopReason, error)
	}
	compacter interface {
		Compact(ctx context.Context, id acp.SessionId, sink acpbridge.Sink) (acp.StopReason, error)
	}
)

// commands are the commands this agent's sessions have.
func (s *server) commands() []acp.AvailableCommand {
	out := slices.Clone(settingCommands)
	if _, ok := s.agent.(reviewer); ok {
		out = append(out, acp.AvailableCommand{Name: "review", Description: "Review the uncommitted changes, or what the instructions ask.", Input: hint("optional review instructions")})
	}
	if _, ok := s.agent.(compacter); ok {
		out = append(out, acp.AvailableCommand{Name: "compact", Description: "Summarize the conversation so far to free the context."})
	}
	return out
}

func hint(h string) *acp.AvailableCommandInput {
	return &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: h}}
}

// command is a prompt that names one of commands: "/mode full".
type command struct{ name, arg string }

// parseCommand reports whether a prompt is one of the session's commands:
// one text block starting with "/" and a known name. Any other "/word" is
// the agent's.
func (s *server) parseCommand(blocks []acp.ContentBlock) (command, bool) {
	if len(blocks) != 1 || blocks[0].Text == nil {
		return command{}, false
	}
	text, ok := strings.CutPrefix(strings.TrimSpace(blocks[0].Text.Text), "/")
	if !ok {
		return command{}, false
	}
	name, arg, _ := strings.Cut(text, " ")
	for _, c := range s.commands() {
		if c.Name == name {
			return command{name: name, arg: strings.TrimSpace(arg)}, true
		}
	}
	return command{}, false
}

// announceCommands sends the session's commands once per connection,
// before the first prompt's updates (and so after the session/new response
// the client needs to know the session).
func (s *server) announceCommands(id acp.SessionId, q *outbox) {
	s.mu.Lock()
	if s.announced == nil {
		s.announced = map[acp.SessionId]bool{}
	}
	done := s.announced[id]
	s.announced[id] = true
	s.mu.Unlock()
	if done {
		return
	}
	q.push(acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{
		SessionUpdate: "available_commands_update", AvailableCommands: s.commands(),
	}})
}

// runCommand carries out a command and answers it in one agent message; a
// refused value is said there too, as the turn's answer, not as a protocol
// error.
func (s *server) runCommand(ctx context.Context, id acp.SessionId, cmd command, q *outbox) (acp.PromptResponse, error) {
	if cmd.name == "review" || cmd.name == "compact" {
		return s.runAgentTurn(id, cmd, q)
	}
	reply, opts, err := s.commandReply(id, cmd)
	if err != nil {
		reply = err.Error()
	}
	s.log.Info("session command", "session", id, "command", cmd.name)
	if opts != nil {
		s.announce(ctx, id, opts)
	}
	q.push(acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
		SessionUpdate: "agent_message_chunk", Content: acp.TextBlock(reply),
	}})
	if err := q.flush(ctx); err != nil {
		return acp.PromptResponse{}, fmt.Errorf("send the command's answer: %w", err)
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// runAgentTurn runs /review or /compact as the agent's own turn on the
// session, streamed like a prompt's (and cancelled the same way).
func (s *server) runAgentTurn(id acp.SessionId, cmd command, q *outbox) (acp.PromptResponse, error) {
	s.log.Info("session command", "session", id, "command", cmd.name)
	var reason acp.StopReason
	var err error
	if cmd.name == "review" {
		reason, err = s.agent.(reviewer).Review(s.ctx, id, cmd.arg, s.sink(q))
	} else {
		reason, err = s.agent.(compacter).Compact(s.ctx, id, s.sink(q))
	}
	if ferr := q.flush(s.ctx); ferr != nil && err == nil {
		err = fmt.Errorf("send the %s turn's updates: %w", cmd.name, ferr)
	}
	if err != nil {
		return acp.PromptResponse{}, fmt.Errorf("/%s: %w", cmd.name, err)
	}
	return acp.PromptResponse{StopReason: reason}, nil
}

// commandReply is a command's answer, and the options when it changed them.
func (s *server) commandReply(id acp.SessionId, cmd command) (string, []acp.SessionConfigOption, error) {
	var set func(*sessionConfig) error
	switch {
	case cmd.name == "mode" && cmd.arg != "":
		set = func(c *sessionConfig) error { return c.setMode(cmd.arg) }
	case cmd.name == "model" && cmd.arg != "":
		set = func(c *sessionConfig) error { return c.setModel(cmd.arg) }
	case cmd.name == "effort" && cmd.arg != "":
		set = func(c *sessionConfig) error { return c.setEffort(cmd.arg) }
	case cmd.name == "effort":
		return "", nil, fmt.Errorf("/effort needs a level: low, medium or high")
	}
	var opts []acp.SessionConfigOption
	if set != nil {
		var err error
		if opts, err = s.change(id, set); err != nil {
			return "", nil, err
		}
	}
	var reply string
	if !s.withConfig(id, func(c *sessionConfig) { reply = c.describe(cmd.name) }) {
		return "", nil, fmt.Errorf("session %s was not started or loaded on this connection", id)
	}
	return reply, opts, nil
}

// describe is the answer to /mode, /model, /effort or /status: the setting
// as it now is.
func (c *sessionConfig) describe(name string) string {
	model := cmp.Or(c.model, "the agent's default")
	effort := cmp.Or(c.effort, "the model's default")
	switch name {
	case "mode":
		var names []string
		for _, m := range acpbridge.Modes() {
			names = append(names, string(m))
		}
		return fmt.Sprintf("Mode: %s (modes: %s).", c.mode, strings.Join(names, ", "))
	case "model":
		if len(c.models) == 0 {
			return fmt.Sprintf("Model: %s.", model)
		}
		return fmt.Sprintf("Model: %s (models: %s).", model, strings.Join(c.modelIDs(), ", "))
	case "effort":
		return fmt.Sprintf("Reasoning effort: %s.", effort)
	}
	return fmt.Sprintf("Mode: %s. Model: %s. Reasoning effort: %s.", c.mode, model, effort)
}
