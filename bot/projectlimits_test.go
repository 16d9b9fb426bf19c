package bot_test

import (
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/projects"
)

// A project's limits replace limits.* in its conversations, counted per
// user across replicas: in the team room (project api: 1 turn an hour, no
// token limit) alice's turn on replica a uses 2000 tokens, past the global
// 1000; her next message there, on replica b, is refused by the project's
// turn limit (the global token limit would have refused it first), and in
// a room outside any project, on replica b, by the global token limit.
func TestProjectLimitsOverrideTheGlobalOnes(t *testing.T) {
	h := codextest.Start(t, answers(1, sm.Usage{InputTokens: 1500, OutputTokens: 500}))
	one, none := 1, int64(0)
	reg, err := projects.New([]projects.Project{{Name: "api", Path: t.TempDir(), Chats: []string{"team"},
		Settings: projects.Settings{TurnsPerUserPerHour: &one, TokensPerUserPerDay: &none}}},
		projects.Options{WorkspaceRoot: h.Workspace, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	st := testenv.OpenStores(t, testenv.Prefix(t, "projlimits"))
	cfg := bot.Config{Access: bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"team"}},
		Limits: bot.Limits{TurnsPerHour: 5, TokensPerDay: 1000}, Projects: registryProjects{reg}}
	a := startAuditReplica(t, "replica-a", h, st, cfg, nil, true)
	b := startAuditReplica(t, "replica-b", h, st, cfg, nil, false)
	team, solo := chattest.Room("team"), chattest.Room("solo")
	if _, err := a.e.Receive(t.Context(), chattest.Message("m1", team, "alice", "one")); err != nil {
		t.Fatal(err)
	}
	a.chat.WaitFor(t, team, "finish") // its tokens are counted before its card's end

	for _, c := range []struct {
		conv      bot.Conversation
		id        string
		what, key string
		end       func(time.Time) time.Time
	}{
		{team, "m2", "1 turns per hour", "turns_per_user_per_hour", hourEnd},
		{solo, "m3", "1000 tokens per day", "tokens_per_user_per_day", dayEndUTC},
	} {
		before := time.Now()
		if _, err := b.e.Receive(t.Context(), chattest.Message(c.id, c.conv, "alice", "two")); err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		got := b.chat.Events(c.conv)
		if want := limitedLines(c.what, c.key, c.end(before), c.end(after)); len(got) != 1 || !slices.Contains(want, got[0]) {
			t.Errorf("alice's message in %s on replica b showed %q, want one of %q", c.conv.Key(), got, want)
		}
		if q, err := st.Queued(t.Context(), c.conv.Key()); err != nil || len(q) != 0 {
			t.Errorf("queued in %s after the refusal: %d (%v), want nothing", c.conv.Key(), len(q), err)
		}
	}
}

func dayEndUTC(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}
