package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/app"
	"github.com/wecodex/wecodex/bot/wecom/longconn"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/metrics"
	"github.com/wecodex/wecodex/schedule"
	"github.com/wecodex/wecodex/store"
)

// errWebhookCannotPush is why a webhook conversation cannot be scheduled.
var errWebhookCannotPush = errors.New("the AI bot's webhook cannot push: WeCom lets it answer only a message it just received, so nothing can start a turn there on its own; use the long connection (wecom.aibot.mode: longconn) or an app:<userid> conversation")

// pushTarget is the conversation a schedule or trigger names and the
// channel that pushes to it, or why none can.
func pushTarget(cfg *configs.Config, key string) (bot.Conversation, string, error) {
	kind, id, _ := strings.Cut(key, ":")
	switch kind {
	case configs.ConversationApp:
		if !cfg.AppEnabled() {
			return bot.Conversation{}, "", errors.New("an app: conversation needs the self-built app (wecom.app.*), which is not configured")
		}
		return wecom.AppChat(id), app.Name, nil
	case configs.ConversationGroup, configs.ConversationSingle:
		switch {
		case !cfg.AIBotEnabled():
			return bot.Conversation{}, "", fmt.Errorf("a %s: conversation needs the AI bot on its long connection (wecom.aibot.mode: longconn), which is not configured", kind)
		case cfg.WeCom.AIBot.Mode != configs.AIBotLongConn:
			return bot.Conversation{}, "", errWebhookCannotPush
		}
		if kind == configs.ConversationGroup {
			return wecom.GroupChat(id), longconn.PushName, nil
		}
		return wecom.SingleChat(id), longconn.PushName, nil
	}
	return bot.Conversation{}, "", fmt.Errorf("%q is not group:<chatid>, single:<userid> or app:<userid>", key)
}

// checkSchedules is what configs cannot check alone: each schedule's cron
// expression, and whether each conversation's channel can push.
func checkSchedules(cfg *configs.Config) configs.Problems {
	var ps configs.Problems
	for _, name := range sortedNames(cfg.Schedules) {
		s, key := cfg.Schedules[name], "schedules."+name
		if _, err := scheduleSpec(s); err != nil && !errors.Is(err, errBadZone) && s.Cron != "" {
			ps = append(ps, configs.Problem{Key: key + ".cron", Message: err.Error()})
		}
		ps = append(ps, checkPush(cfg, key, s.Conversation)...)
	}
	for _, name := range sortedNames(cfg.Triggers) {
		ps = append(ps, checkPush(cfg, "triggers."+name, cfg.Triggers[name].Conversation)...)
	}
	return ps
}

func checkPush(cfg *configs.Config, key, conv string) configs.Problems {
	if kind, id, _ := strings.Cut(conv, ":"); id == "" || (kind != configs.ConversationApp && kind != configs.ConversationGroup && kind != configs.ConversationSingle) {
		return nil // configs named it already
	}
	if _, _, err := pushTarget(cfg, conv); err != nil {
		return configs.Problems{{Key: key + ".conversation", Message: conv + ": " + err.Error()}}
	}
	return nil
}

var errBadZone = errors.New("unknown time zone") // configs names it

func scheduleSpec(s configs.ScheduleConfig) (schedule.Spec, error) {
	loc := time.Local
	if s.Timezone != "" {
		l, err := time.LoadLocation(s.Timezone)
		if err != nil {
			return schedule.Spec{}, errBadZone
		}
		loc = l
	}
	return schedule.Parse(s.Cron, loc)
}

// configuredJobs are the YAML's schedules (checked already).
func configuredJobs(cfg *configs.Config) []schedule.Job {
	var jobs []schedule.Job
	for _, name := range sortedNames(cfg.Schedules) {
		s := cfg.Schedules[name]
		spec, err := scheduleSpec(s)
		if err != nil {
			continue
		}
		jobs = append(jobs, schedule.Job{ID: name, Spec: spec, Missed: schedule.Missed(s.Missed),
			Turn: schedule.Turn{Conversation: s.Conversation, Prompt: s.Prompt, Project: s.Project, Mode: s.Mode}})
	}
	return jobs
}

func configuredTriggers(cfg *configs.Config) []schedule.Trigger {
	var out []schedule.Trigger
	for _, name := range sortedNames(cfg.Triggers) {
		t := cfg.Triggers[name]
		out = append(out, schedule.Trigger{Name: name, Secret: []byte(t.Secret), MaxBody: t.MaxBody,
			Turn: schedule.Turn{Conversation: t.Conversation, Prompt: t.Prompt, Project: t.Project, Mode: t.Mode}})
	}
	return out
}

// scheduleBook is every schedule: the file's and the chat's.
func scheduleBook(cfg *configs.Config, db *store.DB) *schedule.Book {
	return schedule.NewBook(store.NewSchedules(db), configuredJobs(cfg), func(conv string) error {
		_, _, err := pushTarget(cfg, conv)
		return err
	}, nil)
}

// pushStarter starts a schedule's or trigger's turn through the engine's
// push intake, on the channel that pushes to its conversation.
type pushStarter struct {
	cfg *configs.Config
	eng *bot.Engine
}

func (p pushStarter) Start(ctx context.Context, t schedule.Turn) error {
	conv, ch, err := pushTarget(p.cfg, t.Conversation)
	if err != nil {
		return err
	}
	// A group's turn runs as what fired it (Turn.RunAs), so the logs and
	// the approval card name the schedule.
	user := t.RunAs()
	_, err = p.eng.Push(ctx, bot.Pushed{ID: t.ID, Conversation: conv, User: user, Text: t.Prompt, Channel: ch, Project: t.Project, RerunIfLost: t.RerunIfLost, Mode: acpbridge.Mode(t.Mode)})
	return err
}

// pushChannels are the extra channels a registered channel brings for
// turns nobody's message started (the long connection's push channel).
func pushChannels(c bot.Channel) []bot.Channel {
	if lc, ok := c.(*longconn.Channel); ok {
		return []bot.Channel{lc.Pusher()}
	}
	return nil
}

// scheduling is the schedules and triggers serve runs beside the engine.
type scheduling struct {
	sched *schedule.Scheduler
	hooks *schedule.Hooks // nil without triggers
	stop  func()
}

// startSchedules runs the YAML's schedules on this replica until ctx ends
// (every replica runs them; the store's claims make each slot run once)
// and builds the triggers' handler.
func startSchedules(ctx context.Context, cfg *configs.Config, db *store.DB, e *bot.Engine, aud schedule.Auditor, replica string, obs *metrics.Metrics, log *slog.Logger) *scheduling {
	sc := &scheduling{stop: func() {}}
	st := store.NewSchedules(db)
	starter := pushStarter{cfg: cfg, eng: e}
	if trig := configuredTriggers(cfg); len(trig) > 0 {
		sc.hooks = schedule.NewHooks(schedule.HooksConfig{Triggers: trig, Replays: st, Starter: starter, Observer: obs, Auditor: aud, Log: log})
		log.Info("triggers", "names", sc.hooks.Names(), "path", "/hooks/<name>")
	}
	// Every replica runs the scheduler, with or without schedules in the
	// file: one may be added from a chat at any time.
	sc.sched = schedule.New(schedule.Config{Replica: replica, Claims: st, Starter: starter, Observer: obs, Auditor: aud, Log: log,
		Jobs: scheduleBook(cfg, db).Jobs})
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = sc.sched.Run(runCtx) }()
	sc.stop = func() { cancel(); wg.Wait() }
	log.Info("schedules", "in_config", len(cfg.Schedules))
	return sc
}

// handler is the triggers' endpoint, nil without triggers.
func (sc *scheduling) handler() http.Handler {
	if sc == nil || sc.hooks == nil {
		return nil
	}
	return sc.hooks
}

// nextSlots lists each schedule's next slot for /readyz.
func (sc *scheduling) nextSlots() []schedule.Slot {
	if sc == nil || sc.sched == nil {
		return nil
	}
	return sc.sched.NextSlots()
}

func sortedNames[T any](m map[string]T) []string { return slices.Sorted(maps.Keys(m)) }
