package schedule_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/schedule"
	"github.com/wecodex/wecodex/store"
)

// /schedule from the chat, through the real engine and Redis: in a group
// only an approver adds, pauses, resumes and removes; list shows the config file's
// schedule beside the chat's with each next run; a conversation that
// cannot be pushed to is refused with its reason; a member schedules in
// their own 1:1 chat; the scheduler sees what the chat made.
func TestScheduleCommands(t *testing.T) {
	prefix := testenv.Prefix(t, "schedcmd")
	st := testenv.OpenStores(t, prefix)
	db := testenv.OpenStore(t, prefix)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Commands never start the agent.
	agent := codex.New(codex.Options{Bin: "codex-never-started", Logger: log})
	t.Cleanup(func() { _ = agent.Close() })
	room, web, dm := chattest.Room("r1"), chattest.Room("web"), chattest.DM("dave")
	daily, _ := schedule.Parse("0 9 * * 1-5", time.UTC)
	config := []schedule.Job{{ID: "weekday-tests", Spec: daily, Turn: schedule.Turn{Conversation: room.Key(), Prompt: "run the tests"}}}
	book := schedule.NewBook(store.NewSchedules(db), config, func(conv string) error {
		if conv == web.Key() {
			return errors.New("the webhook cannot push")
		}
		return nil
	}, time.UTC)
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: t.TempDir(), Logger: log, LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access:    bot.Access{AllowChats: []string{"r1", "web"}, AllowUsers: []string{"dave"}, Approvers: []string{"alice"}},
		Schedules: book,
	}, testenv.EngineStore(st), agent, chattest.New())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	say := func(conv bot.Conversation, user, text string) string {
		t.Helper()
		n++
		r, err := e.Receive(context.Background(), chattest.Message("m"+string(rune('a'+n)), conv, user, text))
		if err != nil {
			t.Fatal(err)
		}
		return r.Reply.Text
	}
	next9 := nextWeekday9(time.Now().UTC())
	steps := []struct {
		conv             bot.Conversation
		user, text, want string
	}{
		{room, "carol", `/schedule add "@every 10m" run the tests`, "In a group only an approver may add or change schedules; ask one of them."},
		{room, "alice", `/schedule add "0 9 * *" run`, `Not scheduled: "0 9 * *" is not a cron expression (five fields: minute hour day-of-month month day-of-week, like "0 9 * * 1-5", or @daily, @every 10m): expected exactly 5 fields, found 4: [0 9 * *]`},
		{room, "alice", `/schedule add "0 9 * * 1-5" Run the tests on main`, "OK — schedule `chat-1` (`0 9 * * 1-5`), next run " + next9 + ". `/schedule rm chat-1` removes it."},
		{room, "carol", "/schedule list", "**Schedules**\n- `weekday-tests` (config file) `0 9 * * 1-5` — next: " + next9 + " — run the tests\n- `chat-1` `0 9 * * 1-5` — next: " + next9 + " — Run the tests on main"},
		{room, "carol", "/schedule pause chat-1", "In a group only an approver may add or change schedules; ask one of them."},
		{room, "alice", "/schedule pause chat-1", "OK — schedule `chat-1`: paused."},
		{room, "alice", "/schedule list", "**Schedules**\n- `weekday-tests` (config file) `0 9 * * 1-5` — next: " + next9 + " — run the tests\n- `chat-1` `0 9 * * 1-5` — next: paused — Run the tests on main"},
		{dm, "dave", "/schedule rm chat-1", "No schedule `chat-1` made from this chat here; `/schedule list` shows them."},
		{room, "alice", "/schedule rm weekday-tests", "No schedule `weekday-tests` made from this chat here; `/schedule list` shows them."},
		{web, "alice", `/schedule add @daily hello`, "Not scheduled: the webhook cannot push"},
		{dm, "dave", `/schedule add @every 2s say hi`, "OK — schedule `chat-2` (`@every 2s`), next run "},
	}
	for _, s := range steps {
		got := say(s.conv, s.user, s.text)
		if got != s.want && !(strings.HasSuffix(s.want, "next run ") && strings.HasPrefix(got, s.want)) {
			t.Fatalf("%s %s %q:\n got %q\nwant %q", s.conv, s.user, s.text, got, s.want)
		}
	}
	jobs, err := book.Jobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.ID+" "+j.Turn.Conversation+" "+j.Turn.User+" "+j.Turn.Prompt+" paused="+map[bool]string{true: "y", false: "n"}[j.Paused])
	}
	want := []string{"weekday-tests room:r1  run the tests paused=n", "chat-1 room:r1 alice Run the tests on main paused=y", "chat-2 dm:dave dave say hi paused=n"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("jobs:\n got %q\nwant %q", got, want)
	}
	if got := say(room, "alice", "/schedule resume chat-1"); got != "OK — schedule `chat-1`: resumed." {
		t.Fatalf("resume: %q", got)
	}
	if got := say(room, "carol", "/schedule list"); got != "**Schedules**\n- `weekday-tests` (config file) `0 9 * * 1-5` — next: "+next9+" — run the tests\n- `chat-1` `0 9 * * 1-5` — next: "+next9+" — Run the tests on main" {
		t.Fatalf("list after resume: %q", got)
	}
	if jobs, err := book.Jobs(context.Background()); err != nil || len(jobs) != 3 || jobs[1].ID != "chat-1" || jobs[1].Paused {
		t.Fatalf("jobs after resume (%v): %+v, want chat-1 active", err, jobs)
	}
	if got := say(room, "alice", "/schedule rm chat-1"); got != "OK — schedule `chat-1`: removed." {
		t.Fatalf("rm: %q", got)
	}
	if got := say(room, "alice", "/schedule list"); got != "**Schedules**\n- `weekday-tests` (config file) `0 9 * * 1-5` — next: "+next9+" — run the tests" {
		t.Fatalf("list after rm: %q", got)
	}
}

// nextWeekday9 is the next weekday 09:00 UTC after now, as /schedule shows it.
func nextWeekday9(now time.Time) string {
	s, _ := schedule.Parse("0 9 * * 1-5", time.UTC)
	return s.Next(now).Format("2006-01-02 15:04 MST")
}
