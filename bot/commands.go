package bot

import (
	"context"
	"fmt"
	"strings"
)

// parseCommand recognises a slash command of the table (commandtable.go)
// and returns the word that named it.
func parseCommand(text string) (string, bool) {
	_, word, ok := lookupCommand(text)
	return word, ok
}

// approvalCommand reports whether cmd decides or lists approvals: an
// approver may send it from any chat with the bot, allowed there or not.
func approvalCommand(cmd string) bool {
	c, _, ok := lookupCommand(cmd)
	return ok && c.anyChat
}

// command returns a command's answer; none of them runs the agent.
func (in *intake) command(ctx context.Context, ch Channel, m Message, cmd string) (string, error) {
	c, word, ok := lookupCommand(cmd)
	if !ok {
		return in.help(), nil
	}
	return c.run(ctx, in, ch, m, word)
}

func runNew(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	if err := in.store.ForgetSession(ctx, m.Conversation.Key()); err != nil {
		return "", fmt.Errorf("/new in %s: %w", m.Conversation.Key(), err)
	}
	in.auditSetting(ctx, m, "session", "new")
	if err := in.dropFullMode(ctx, m); err != nil {
		return "", fmt.Errorf("/new in %s: %w", m.Conversation.Key(), err)
	}
	return textNew, nil
}

func runStop(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
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
}

func runStatus(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	return in.status(ctx, m)
}

func runModel(ctx context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	return in.modelCommand(ctx, m, word)
}

func runProject(ctx context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	return in.projectCommand(ctx, m, word)
}

func runApproval(ctx context.Context, in *intake, _ Channel, m Message, word string) (string, error) {
	return in.approvals.command(ctx, m, word)
}

func runPending(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	return in.approvals.pending(ctx, m.User)
}

func runMore(ctx context.Context, _ *intake, ch Channel, m Message, _ string) (string, error) {
	c, ok := ch.(Continuer)
	if !ok {
		return TextNoMore, nil
	}
	return c.More(ctx, m.Conversation)
}

func runFile(ctx context.Context, in *intake, ch Channel, m Message, _ string) (string, error) {
	return in.file(ctx, ch, m)
}

func runSchedule(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	return in.schedule(ctx, m, strings.TrimSpace(m.Text)) // schedulecmd.go
}

func runHelp(_ context.Context, in *intake, _ Channel, _ Message, _ string) (string, error) {
	return in.help(), nil
}

func (in *intake) status(ctx context.Context, m Message) (string, error) {
	conv := m.Conversation.Key()
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
	project, err := currentProject(ctx, in.cfg.Projects, in.store, m.Conversation, m.User)
	if err != nil {
		return "", fmt.Errorf("/status of %s: %w", conv, err)
	}
	offered := modelAllowed(in.cfg, project, chosen[settingModel])
	in.log.Info("status", "conv", conv, "replica", replica, "session", session, "waiting", len(waiting))
	return textStatus(token != 0, len(waiting), session != "", in.sessionName(ctx, conv, session)) +
		settingsStatus(chosen, in.unsetSetting(), offered) + modeStatus(chosenMode(chosen)), nil
}

// sessionName is what /name called conv's session id, "" for none (or
// when the record cannot be read: /status still answers).
func (in *intake) sessionName(ctx context.Context, conv, id string) string {
	if in.threads == nil || id == "" {
		return ""
	}
	list, err := in.recordedSessions(ctx, conv) // sessioncmd.go
	if err != nil {
		in.log.Warn("read the sessions for /status; it names none", "conv", conv, "err", err)
		return ""
	}
	for _, e := range list {
		if e.id == id {
			return e.rec.Name
		}
	}
	return ""
}
