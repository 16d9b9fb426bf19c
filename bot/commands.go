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
	case "/new", "/stop", "/status", "/help", "/more":
		return word, true
	}
	return "", false
}

// command answers a command at once with a finished frame; none of them runs
// the agent.
func (e *Engine) command(ctx context.Context, m Message, streamID, cmd string) (Frame, error) {
	var out string
	switch cmd {
	case "/help":
		out = textHelp
	case "/more":
		var err error
		if out, err = e.more(ctx, m.Conversation); err != nil {
			return Frame{}, err
		}
	case "/new":
		if err := e.store.ForgetSession(ctx, m.Conversation); err != nil {
			return Frame{}, fmt.Errorf("/new in %s: %w", m.Conversation, err)
		}
		out = textNew
	case "/stop":
		running, err := e.store.RequestStop(ctx, m.Conversation)
		if err != nil {
			return Frame{}, fmt.Errorf("/stop in %s: %w", m.Conversation, err)
		}
		// The store's announcement reaches this replica too; checking a local
		// turn directly does not depend on the subscription.
		e.checkStop(m.Conversation)
		out = textNothingToRun
		if running {
			out = textStopped
		}
	case "/status":
		replica, token, err := e.store.Lease(ctx, m.Conversation)
		if err != nil {
			return Frame{}, fmt.Errorf("/status of %s: %w", m.Conversation, err)
		}
		waiting, err := e.store.Queued(ctx, m.Conversation)
		if err != nil {
			return Frame{}, fmt.Errorf("/status of %s: %w", m.Conversation, err)
		}
		session, _, err := e.store.Conversation(ctx, m.Conversation)
		if err != nil {
			return Frame{}, fmt.Errorf("/status of %s: %w", m.Conversation, err)
		}
		out = textStatus(token != 0, replica, len(waiting), session)
	}
	return e.saveFrame(ctx, streamID, owner(m.ChatType, m.Conversation, m.User), frameFinished, out)
}
