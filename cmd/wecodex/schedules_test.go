package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/configs"
	"github.com/wecodex/wecodex/schedule"
)

// check-config names a bad cron expression, an unknown time zone, an
// unknown project and each conversation whose channel cannot push, the
// webhook's with its reason.
func TestCheckConfigSchedules(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	webhook := writeConfig(t, `
wecom:
  aibot:
    token: t
    encoding_aes_key: `+e2eAESKey+`
schedules:
  tests:
    cron: "0 9 * * 1-5"
    conversation: group:wrkChat
    prompt: run the tests
  typo:
    cron: "0 9 * *"
    conversation: app:alice
    prompt: p
  zone:
    cron: "@daily"
    timezone: Mars/Olympus
    conversation: group:wrkChat
    prompt: p
    project: nope
triggers:
  ci:
    secret_file: `+secret+`
    conversation: single:alice
    prompt: explain
`)
	var out, errOut bytes.Buffer
	if code := cmdCheckConfig([]string{"--config", webhook}, &out, &errOut); code != cli.ExitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, cli.ExitError, errOut.String())
	}
	want := `error: schedules.zone.timezone: "Mars/Olympus" is not a time zone: use an IANA name like Asia/Shanghai or UTC, or leave it empty for the server's` + "\n" +
		`error: schedules.zone.project: names project "nope", but projects: has none` + "\n" +
		"error: schedules.tests.conversation: group:wrkChat: " + errWebhookCannotPush.Error() + "\n" +
		`error: schedules.typo.cron: "0 9 * *" is not a cron expression (five fields: minute hour day-of-month month day-of-week, like "0 9 * * 1-5", or @daily, @every 10m): expected exactly 5 fields, found 4: [0 9 * *]` + "\n" +
		"error: schedules.typo.conversation: app:alice: an app: conversation needs the self-built app (wecom.app.*), which is not configured\n" +
		"error: schedules.zone.conversation: group:wrkChat: " + errWebhookCannotPush.Error() + "\n" +
		"error: triggers.ci.conversation: single:alice: " + errWebhookCannotPush.Error() + "\n" +
		webhook + ": config has errors\n"
	if got := errOut.String(); got != want {
		t.Fatalf("stderr:\n%s\nwant:\n%s", got, want)
	}

	longconn := writeConfig(t, `
wecom:
  aibot: {mode: longconn, bot_id: b, secret: s}
schedules:
  tests: {cron: "@every 10m", timezone: Asia/Shanghai, conversation: "group:wrkChat", prompt: run the tests, missed: once}
`)
	out.Reset()
	errOut.Reset()
	if code := cmdCheckConfig([]string{"--config", longconn}, &out, &errOut); code != cli.ExitOK || out.String() != "config OK\n" {
		t.Fatalf("long connection schedule: exit %d, stdout %q, stderr:\n%s", code, out.String(), errOut.String())
	}
}

func TestScheduleValuesMatchTheirOwners(t *testing.T) {
	for _, c := range []struct{ what, got, owner string }{
		{"group:", configs.ConversationGroup, wecom.KindGroup},
		{"single:", configs.ConversationSingle, wecom.KindSingle},
		{"app:", configs.ConversationApp, wecom.KindApp},
		{"missed skip", configs.DefaultScheduleMissed, string(schedule.MissedSkip)},
		{"missed once", "once", string(schedule.MissedOnce)},
	} {
		if c.got != c.owner {
			t.Errorf("%s: configs has %q, its owner %q", c.what, c.got, c.owner)
		}
	}
	if configs.DefaultTriggerMaxBody != schedule.DefaultMaxBody {
		t.Errorf("triggers.<name>.max_body: configs %d, schedule %d", configs.DefaultTriggerMaxBody, schedule.DefaultMaxBody)
	}
}

// The README's weekday example, as it stands (its secret file made here),
// passes check-config, and its slots are weekdays at 09:00 in Shanghai.
func TestReadmeWeekdaySchedule(t *testing.T) {
	example := readmeBlock(t, readmeText(t), "### Worked example: the test suite every weekday at 9:00", "yaml")
	secret := filepath.Join(t.TempDir(), "aibot-secret")
	if err := os.WriteFile(secret, []byte("s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := writeConfig(t, strings.Replace(example, "/etc/wecodex/aibot-secret", secret, 1))
	var out, errOut bytes.Buffer
	if code := cmdCheckConfig([]string{"--config", path}, &out, &errOut); code != cli.ExitOK || out.String() != "config OK\n" {
		t.Fatalf("check-config of the README's example: exit %d, stdout %q, stderr:\n%s", code, out.String(), errOut.String())
	}
	cfg, _, err := configs.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	jobs := configuredJobs(cfg)
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	// Friday 4 December 2026, 10:00 in Shanghai: next is Monday 09:00.
	from := time.Date(2026, 12, 4, 10, 0, 0, 0, shanghai)
	want := time.Date(2026, 12, 7, 9, 0, 0, 0, shanghai)
	if len(jobs) != 1 || jobs[0].ID != "weekday-tests" || jobs[0].Missed != schedule.MissedOnce || jobs[0].Turn.Mode != "read-only" ||
		jobs[0].Turn.Conversation != "group:wrkTeamChat" || !jobs[0].Spec.Next(from).Equal(want) {
		t.Fatalf("the README's schedule: %+v, want weekday-tests next at %s", jobs, want)
	}
}
