package bot

import (
	"context"
	"fmt"
	"strings"
)

// parseCommand recognises a slash command: the first word, case-insensitive.
// Unknown slash words are not commands; they go to the agent, which may know
// them.
func parseCommand(text string) (string, bool) {
	if !strings.HasPrefix(text, "/") {
		return "", false
	}
	word, _, _ := strings.Cut(text, " ")
	word = strings.ToLower(strings.TrimSpace(word))
	switch word {
	case "/new", "/stop", "/status", "/help", "/more", "/approve", "/deny", "/pending", "/file",
		"/project", "/diff", "/reset", "/schedule", "/model", "/effort":
		return word, true
	}
	return "", false
}

// approvalCommand reports whether cmd decides or lists approvals: an
// approver may send it from any chat with the bot, allowed there or not.
func approvalCommand(cmd string) bool {
	return cmd == "/approve" || cmd == "/deny" || cmd == "/pending"
}

// command returns a command's answer; none of them runs the agent.
func (in *intake) command(ctx context.Context, ch Channel, m Message, cmd string) (string, error) {
	switch cmd {
	case "/approve", "/deny":
		return in.approvals.command(ctx, m, cmd)
	case "/pending":
		return in.approvals.pending(ctx, m.User)
	case "/schedule":
		return in.schedule(ctx, m, strings.TrimSpace(m.Text)) // schedulecmd.go
	case "/more":
		c, ok := ch.(Continuer)
		if !ok {
			return TextNoMore, nil
		}
		return c.More(ctx, m.Conversation)
	case "/new":
		if err := in.store.ForgetSession(ctx, m.Conversation.Key()); err != nil {
			return "", fmt.Errorf("/new in %s: %w", m.Conversation.Key(), err)
		}
		in.auditSetting(ctx, m, "session", "new")
		return textNew, nil
	case "/stop":
		running, err := in.store.RequestStop(ctx, m.Conversation.Key())
		if err != nil {
			return "", fmt.Errorf("/stop in %s: %w", m.Conversation.Key(), err)
		}
		// The store's announcement reaches this replica too; checking a local
		// turn directly does not depend on the subscription.
		in.sched.checkStop(m.Conversation.Key())
		if running {
			return textStopped, nil
		}
		return textNothingToRun, nil
	case "/status":
		return in.status(ctx, m.Conversation.Key())
	case "/file":
		return in.file(ctx, ch, m)
	}
	if isModelCommand(cmd) {
		return in.modelCommand(ctx, m, cmd)
	}
	if isProjectCommand(cmd) {
		return in.projectCommand(ctx, m, cmd)
	}
	return in.help(), nil
}

func (in *intake) status(ctx context.Context, conv string) (string, error) {
	replica, token, err := in.store.Lease(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/status of %s: %w", conv, err)
	}
	waiting, err := in.store.Queued(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/status of %s: %w", conv, err)
	}
	session, _, err := in.store.Conversation(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/status of %s: %w", conv, err)
	}
	chosen, err := in.store.ChosenSettings(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/status of %s: %w", conv, err)
	}
	in.log.Info("status", "conv", conv, "replica", replica, "session", session, "waiting", len(waiting))
	return textStatus(token != 0, len(waiting), session != "") + settingsStatus(chosen), nil
}

// help is /help's answer: the project commands only where projects are
// configured.
func (in *intake) help() string {
	if in.cfg.Projects == nil {
		return textHelp
	}
	head, tail, _ := strings.Cut(textHelp, "- `/help`")
	return head + textProjectHelp + "- `/help`" + tail
}
