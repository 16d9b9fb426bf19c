package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wecodex/wecodex/acpbridge"
)

// Pushed is a turn no message started: a schedule's slot or a trigger's
// request. It runs in its conversation like a message its User sent, and
// its card is shown on Channel, which must be one that can push (the long
// connection's push channel, the self-built app): nobody's message holds a
// reply to answer on.
type Pushed struct {
	// ID is unique per fire ("schedule:<job>:<slot>"): dedupe makes a
	// second Push of one ID a repeat that starts nothing.
	ID           string
	Conversation Conversation
	// User is whom the turn runs as (approvals, logs).
	User string
	// Text is the prompt. It is never read as a command.
	Text    string
	Channel string
	// Project is the schedule's or trigger's own project: the turn works
	// in the conversation's workspace of it, with its instructions, instead
	// of the project the conversation resolves to. "" keeps that one.
	Project string
	// RerunIfLost runs the turn once more when the replica running it dies
	// before it finishes (a schedule's missed: once); its card still says
	// it stopped. The second run is not run again.
	RerunIfLost bool
	// Mode is the turn's permission mode (acpbridge.Mode*); empty means
	// read-only: nobody is there to watch what it changes.
	Mode acpbridge.Mode
}

// Push queues p behind the conversation's running turn, as intake queues a
// message. Access is not checked here: an admin configured the schedule or
// trigger, or the chat's /schedule add checked its maker. The receipt's
// Current is set when p.ID was pushed before.
func (e *Engine) Push(ctx context.Context, p Pushed) (Receipt, error) {
	return e.intake.push(ctx, p, false)
}

// push queues p; rerun says it runs again a lost turn (see rerunOrphan).
func (in *intake) push(ctx context.Context, p Pushed, rerun bool) (Receipt, error) {
	text := strings.TrimSpace(p.Text)
	if p.ID == "" || p.User == "" || text == "" {
		return Receipt{}, errors.New("push turn: it has no id, no user or no text")
	}
	if err := p.Conversation.valid(); err != nil {
		return Receipt{}, fmt.Errorf("push turn %s: %w", p.ID, err)
	}
	ch, ok := in.channels.of(p.Channel)
	if !ok || p.Channel == "" {
		return Receipt{}, fmt.Errorf("push turn %s: no channel named %q is registered", p.ID, p.Channel)
	}
	if p.Project != "" && (in.cfg.Projects == nil || !slices.Contains(in.cfg.Projects.Names(), p.Project)) {
		return Receipt{}, fmt.Errorf("push turn %s: no project named %q is configured", p.ID, p.Project)
	}
	m := Message{ID: p.ID, Conversation: p.Conversation, User: p.User, Text: text, Channel: ch.Name(), project: p.Project,
		rerunIfLost: p.RerunIfLost, rerun: rerun, mode: pushedMode(p.Mode), pushed: true}
	m.Reply.Stream = streamOf(m)
	log := in.log.With("msgid", m.ID, "conv", m.Conversation.Key(), "user", m.User, "stream", m.Reply.Stream, "channel", m.Channel)
	return in.enqueue(ctx, log, ch, m, text, false) // a schedule or trigger, not a user, started it: no limit counts it
}

// rerunOrphan pushes once more the turn of a replica that died running it,
// when it asked for that (Pushed.RerunIfLost). Only one caller is handed an
// orphan, and the second run's id is the first's with ":rerun", so it runs
// once however many replicas look.
func (s *scheduler) rerunOrphan(ctx context.Context, item []byte) {
	var q queued
	if json.Unmarshal(item, &q) != nil || !q.Rerun || s.push == nil {
		return
	}
	p := Pushed{ID: q.MsgID + ":rerun", Conversation: q.conversation(), User: q.User, Text: q.Text, Channel: q.Channel, Project: q.Project, Mode: q.Mode}
	rc, err := s.push(ctx, p, true)
	if err != nil || rc.Reply.State == ReplyFinished {
		// Refused (the conversation's queue is full): its card says why.
		s.log.Error("could not run again the turn of a replica that stopped", "conv", q.Conversation, "msgid", q.MsgID, "err", err)
		return
	}
	s.log.Info("running again the turn of a replica that stopped before it finished", "conv", q.Conversation, "msgid", q.MsgID, "rerun", p.ID)
}

// pushedMode is a pushed turn's mode: read-only unless its configuration
// says otherwise (configs.DefaultScheduleMode), so an unknown value never
// grants more.
func pushedMode(mode acpbridge.Mode) acpbridge.Mode {
	if _, err := acpbridge.ParseMode(string(mode)); err == nil {
		return mode
	}
	return acpbridge.ModeReadOnly
}
