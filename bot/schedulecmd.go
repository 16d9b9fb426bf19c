package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wecodex/wecodex/cards"
)

// Schedules keeps the schedules made with /schedule, beside the config
// file's (package schedule's Book implements it). Every method is scoped to
// one conversation: an id of another conversation's schedule is not found.
type Schedules interface {
	// AddSchedule adds a schedule that runs prompt in conv as user on each
	// slot of expr. A *ScheduleRefusal says why it cannot (a bad
	// expression, a conversation that cannot be pushed to).
	AddSchedule(ctx context.Context, conv Conversation, user, expr, prompt string) (ScheduleEntry, error)
	// ListSchedules lists conv's schedules, the config file's first.
	ListSchedules(ctx context.Context, conv Conversation) ([]ScheduleEntry, error)
	// ChangeSchedule removes, pauses or resumes conv's schedule id; found
	// is false when conv has no such schedule made from the chat.
	ChangeSchedule(ctx context.Context, conv Conversation, id string, c ScheduleChange) (found bool, err error)
}

// ScheduleChange is what /schedule rm, pause and resume do.
type ScheduleChange string

const (
	ScheduleRemove ScheduleChange = "rm"
	SchedulePause  ScheduleChange = "pause"
	ScheduleResume ScheduleChange = "resume"
)

// ScheduleEntry is one schedule as /schedule list shows it.
type ScheduleEntry struct {
	ID     string
	Cron   string
	Prompt string
	// Next is the next slot; zero when paused or none comes.
	Next   time.Time
	Paused bool
	// FromConfig is set for the config file's schedules, which the chat
	// cannot change.
	FromConfig bool
}

// ScheduleRefusal is a /schedule add that cannot be: its Reason is for the
// user.
type ScheduleRefusal struct{ Reason string }

func (r *ScheduleRefusal) Error() string { return r.Reason }

const (
	textScheduleUsage = "Usage: `/schedule add \"<cron>\" <prompt>` (cron: five fields like `0 9 * * 1-5`, or `@daily`, `@every 10m`), " +
		"`/schedule list`, `/schedule rm|pause|resume <id>`"
	textScheduleOff       = "Schedules are not available on this server."
	textScheduleApprovers = "In a group only an approver may add or change schedules; ask one of them."
)

// schedule answers /schedule: in a group only an approver may add or
// change one, in a 1:1 chat its member does; anyone here may list them.
func (in *intake) schedule(ctx context.Context, m Message, text string) (string, error) {
	if in.cfg.Schedules == nil {
		return textScheduleOff, nil
	}
	_, rest, _ := strings.Cut(text, " ")
	verb, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
	verb, arg = strings.ToLower(verb), strings.TrimSpace(arg)
	if verb == "list" || verb == "" {
		return in.listSchedules(ctx, m.Conversation)
	}
	if m.Conversation.Group && !in.cfg.Access.IsApprover(m.User) {
		in.log.Info("refused: /schedule by a non-approver in a group", "conv", m.Conversation.Key(), "user", m.User, "verb", verb)
		return textScheduleApprovers, nil
	}
	switch verb {
	case "add":
		return in.addSchedule(ctx, m, arg)
	case string(ScheduleRemove), string(SchedulePause), string(ScheduleResume):
		if arg == "" || strings.ContainsRune(arg, ' ') {
			return textScheduleUsage, nil
		}
		found, err := in.cfg.Schedules.ChangeSchedule(ctx, m.Conversation, arg, ScheduleChange(verb))
		if err != nil {
			return "", fmt.Errorf("/schedule %s in %s: %w", verb, m.Conversation.Key(), err)
		}
		if !found {
			return fmt.Sprintf("No schedule `%s` made from this chat here; `/schedule list` shows them.", arg), nil
		}
		in.log.Info("schedule changed", "conv", m.Conversation.Key(), "user", m.User, "schedule", arg, "change", verb)
		return fmt.Sprintf("OK — schedule `%s`: %s.", arg, map[string]string{"rm": "removed", "pause": "paused", "resume": "resumed"}[verb]), nil
	}
	return textScheduleUsage, nil
}

func (in *intake) addSchedule(ctx context.Context, m Message, arg string) (string, error) {
	expr, prompt, ok := splitScheduleArgs(arg)
	if !ok {
		return textScheduleUsage, nil
	}
	e, err := in.cfg.Schedules.AddSchedule(ctx, m.Conversation, m.User, expr, prompt)
	var refused *ScheduleRefusal
	switch {
	case errors.As(err, &refused):
		return "Not scheduled: " + refused.Reason, nil
	case err != nil:
		return "", fmt.Errorf("/schedule add in %s: %w", m.Conversation.Key(), err)
	}
	in.log.Info("schedule added", "conv", m.Conversation.Key(), "user", m.User, "schedule", e.ID, "cron", e.Cron)
	return fmt.Sprintf("OK — schedule `%s` (`%s`), next run %s. `/schedule rm %s` removes it.", e.ID, e.Cron, nextText(e), e.ID), nil
}

// splitScheduleArgs reads `"<cron>" <prompt>`; a descriptor may go
// unquoted (@daily, @every 10m).
func splitScheduleArgs(arg string) (expr, prompt string, ok bool) {
	switch {
	case strings.HasPrefix(arg, `"`):
		end := strings.IndexByte(arg[1:], '"')
		if end < 0 {
			return "", "", false
		}
		expr, prompt = arg[1:end+1], arg[end+2:]
	case strings.HasPrefix(arg, "@every "):
		f := strings.Fields(arg)
		if len(f) < 2 {
			return "", "", false
		}
		expr = f[0] + " " + f[1]
		prompt = strings.TrimSpace(arg)[len(f[0]):]
		prompt = strings.TrimSpace(strings.TrimSpace(prompt)[len(f[1]):])
	case strings.HasPrefix(arg, "@"):
		expr, prompt, _ = strings.Cut(arg, " ")
	default:
		return "", "", false
	}
	prompt = strings.TrimSpace(prompt)
	return strings.TrimSpace(expr), prompt, expr != "" && prompt != ""
}

func (in *intake) listSchedules(ctx context.Context, c Conversation) (string, error) {
	list, err := in.cfg.Schedules.ListSchedules(ctx, c)
	if err != nil {
		return "", fmt.Errorf("/schedule list in %s: %w", c.Key(), err)
	}
	if len(list) == 0 {
		return "No schedules here. " + textScheduleUsage, nil
	}
	var b strings.Builder
	b.WriteString("**Schedules**")
	for _, e := range list {
		origin := ""
		if e.FromConfig {
			origin = " (config file)"
		}
		fmt.Fprintf(&b, "\n- `%s`%s `%s` — next: %s — %s", e.ID, origin, e.Cron, nextText(e), oneLinePrompt(e.Prompt))
	}
	return b.String(), nil
}

func nextText(e ScheduleEntry) string {
	switch {
	case e.Paused:
		return "paused"
	case e.Next.IsZero():
		return "never"
	}
	return e.Next.Format("2006-01-02 15:04 MST")
}

// oneLinePrompt is a prompt as /schedule list shows it: one line, at most
// 80 characters.
func oneLinePrompt(p string) string {
	p = cards.OneLine(p)
	if r := []rune(p); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return p
}
