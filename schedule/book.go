package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// BookStore keeps the schedules made from the chat (*store.Schedules).
type BookStore interface {
	NewChatScheduleID(ctx context.Context) (int64, error)
	PutChatSchedule(ctx context.Context, id string, data []byte) error
	ChatSchedules(ctx context.Context) (map[string][]byte, error)
	DeleteChatSchedule(ctx context.Context, id string) error
}

// Book is every schedule: the config file's, fixed, and those made with
// /schedule, kept in the store so every replica's scheduler sees them
// (bot.Schedules; Jobs feeds the Scheduler).
type Book struct {
	store  BookStore
	config []Job
	// canPush says why a conversation (by key) cannot get pushed turns,
	// nil when it can.
	canPush func(conv string) error
	loc     *time.Location
	now     func() time.Time

	mu sync.Mutex // serialises changes of one replica; the store's hash is per field
}

var _ bot.Schedules = (*Book)(nil)

// NewBook returns the book over config's jobs; chat schedules run in loc
// (nil: the server's time zone).
func NewBook(st BookStore, config []Job, canPush func(conv string) error, loc *time.Location) *Book {
	if loc == nil {
		loc = time.Local
	}
	return &Book{store: st, config: config, canPush: canPush, loc: loc, now: time.Now}
}

// chatSchedule is a chat schedule as stored.
type chatSchedule struct {
	Conversation string    `json:"conv"`
	User         string    `json:"user"`
	Cron         string    `json:"cron"`
	Prompt       string    `json:"prompt"`
	Paused       bool      `json:"paused,omitempty"`
	Created      time.Time `json:"created"`
}

// Jobs is every job now, for the Scheduler: a chat schedule that no longer
// parses is left out.
func (b *Book) Jobs(ctx context.Context) ([]Job, error) {
	chat, err := b.chat(ctx)
	if err != nil {
		return nil, err
	}
	jobs := append([]Job(nil), b.config...)
	for _, id := range sortedNames(chat) {
		c := chat[id]
		spec, err := Parse(c.Cron, b.loc)
		if err != nil {
			continue
		}
		jobs = append(jobs, Job{ID: id, Spec: spec, Missed: MissedSkip, Paused: c.Paused,
			Turn: Turn{Conversation: c.Conversation, User: c.User, Prompt: c.Prompt}})
	}
	return jobs, nil
}

func (b *Book) chat(ctx context.Context) (map[string]chatSchedule, error) {
	raw, err := b.store.ChatSchedules(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]chatSchedule, len(raw))
	for id, data := range raw {
		var c chatSchedule
		if json.Unmarshal(data, &c) == nil {
			out[id] = c
		}
	}
	return out, nil
}

// AddSchedule implements bot.Schedules.
func (b *Book) AddSchedule(ctx context.Context, conv bot.Conversation, user, expr, prompt string) (bot.ScheduleEntry, error) {
	spec, err := Parse(expr, b.loc)
	if err != nil {
		return bot.ScheduleEntry{}, &bot.ScheduleRefusal{Reason: err.Error()}
	}
	if err := b.canPush(conv.Key()); err != nil {
		return bot.ScheduleEntry{}, &bot.ScheduleRefusal{Reason: err.Error()}
	}
	n, err := b.store.NewChatScheduleID(ctx)
	if err != nil {
		return bot.ScheduleEntry{}, err
	}
	id := "chat-" + strconv.FormatInt(n, 10)
	c := chatSchedule{Conversation: conv.Key(), User: user, Cron: spec.String(), Prompt: prompt, Created: b.now()}
	if err := b.put(ctx, id, c); err != nil {
		return bot.ScheduleEntry{}, err
	}
	return b.entry(id, c, spec), nil
}

func (b *Book) put(ctx context.Context, id string, c chatSchedule) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode chat schedule %s: %w", id, err)
	}
	return b.store.PutChatSchedule(ctx, id, data)
}

func (b *Book) entry(id string, c chatSchedule, spec Spec) bot.ScheduleEntry {
	e := bot.ScheduleEntry{ID: id, Cron: c.Cron, Prompt: c.Prompt, Paused: c.Paused}
	if !c.Paused {
		e.Next = spec.Next(b.now())
	}
	return e
}

// ListSchedules implements bot.Schedules.
func (b *Book) ListSchedules(ctx context.Context, conv bot.Conversation) ([]bot.ScheduleEntry, error) {
	var out []bot.ScheduleEntry
	for _, j := range b.config {
		if j.Turn.Conversation == conv.Key() {
			out = append(out, bot.ScheduleEntry{ID: j.ID, Cron: j.Spec.String(), Prompt: j.Turn.Prompt, FromConfig: true,
				Next: j.Spec.Next(b.now())})
		}
	}
	chat, err := b.chat(ctx)
	if err != nil {
		return nil, err
	}
	var mine []bot.ScheduleEntry
	for id, c := range chat {
		if c.Conversation != conv.Key() {
			continue
		}
		spec, err := Parse(c.Cron, b.loc)
		if err != nil {
			continue
		}
		mine = append(mine, b.entry(id, c, spec))
	}
	sort.Slice(mine, func(i, k int) bool { return chatNumber(mine[i].ID) < chatNumber(mine[k].ID) })
	return append(out, mine...), nil
}

func chatNumber(id string) int64 {
	n, _ := strconv.ParseInt(id[len("chat-"):], 10, 64)
	return n
}

// ChangeSchedule implements bot.Schedules.
func (b *Book) ChangeSchedule(ctx context.Context, conv bot.Conversation, id string, change bot.ScheduleChange) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	chat, err := b.chat(ctx)
	if err != nil {
		return false, err
	}
	c, ok := chat[id]
	if !ok || c.Conversation != conv.Key() {
		return false, nil
	}
	switch change {
	case bot.ScheduleRemove:
		return true, b.store.DeleteChatSchedule(ctx, id)
	case bot.SchedulePause:
		c.Paused = true
	case bot.ScheduleResume:
		c.Paused = false
	default:
		return false, fmt.Errorf("unknown schedule change %q", change)
	}
	return true, b.put(ctx, id, c)
}
