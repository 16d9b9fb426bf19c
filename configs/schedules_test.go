package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSchedulesAndTriggers(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Check(writeConfig(t, `
schedules:
  Weekday-Tests:
    cron: "0 9 * * 1-5"
    timezone: Asia/Shanghai
    conversation: group:wrkChat
    prompt: run the tests
    missed: once
triggers:
  ci-failed:
    secret_file: `+secret+`
    conversation: app:alice
    prompt: explain
`))
	if err != nil {
		t.Fatal(err)
	}
	wantS := map[string]ScheduleConfig{"Weekday-Tests": {Cron: "0 9 * * 1-5", Timezone: "Asia/Shanghai",
		Conversation: "group:wrkChat", Prompt: "run the tests", Mode: "read-only", Missed: "once"}}
	if !reflect.DeepEqual(cfg.Schedules, wantS) {
		t.Errorf("schedules = %+v\nwant %+v", cfg.Schedules, wantS)
	}
	wantT := map[string]TriggerConfig{"ci-failed": {SecretFile: secret, Secret: "s3cret", Conversation: "app:alice",
		Prompt: "explain", Mode: "read-only", MaxBody: 64 << 10}}
	if !reflect.DeepEqual(cfg.Triggers, wantT) {
		t.Errorf("triggers = %+v\nwant %+v", cfg.Triggers, wantT)
	}
}

func TestSchedulesProblems(t *testing.T) {
	_, _, err := Check(writeConfig(t, `
schedules:
  "bad name":
    cron: "@daily"
    conversation: group:c
    prompt: p
  x:
    crn: "@daily"
    timezone: Mars/Olympus
    conversation: "chat:1"
    mode: yolo
    missed: twice
triggers:
  t:
    conversation: "single:"
    prompt: p
    max_body: 2000000
`))
	want := Problems{
		{"schedules.x.crn", "unknown key; see configs/wecodex.example.yaml for a schedule's keys"},
		{"schedules.bad name", "the name must be 1–64 letters, digits, - or _, starting with a letter or digit: it names the schedule in Redis keys, metrics and URLs"},
		{"schedules.x.cron", `required: five fields like "0 9 * * 1-5", or a descriptor like @daily or @every 10m`},
		{"schedules.x.timezone", `"Mars/Olympus" is not a time zone: use an IANA name like Asia/Shanghai or UTC, or leave it empty for the server's`},
		{"schedules.x.conversation", `must be group:<chatid>, single:<userid> or app:<userid> (as the logs show it), not "chat:1"`},
		{"schedules.x.prompt", "required: what the turn asks Codex"},
		{"schedules.x.mode", `must be one of read-only, workspace, full, not "yolo"`},
		{"schedules.x.missed", `must be one of skip, once, not "twice"`},
		{"triggers.t.secret_file", "required: a file holding the trigger's HMAC secret (e.g. made with: openssl rand -hex 32 > /etc/wecodex/hook-t)"},
		{"triggers.t.conversation", `must be group:<chatid>, single:<userid> or app:<userid> (as the logs show it), not "single:"`},
		{"triggers.t.max_body", "must be a number of bytes from 1 to 1048576 (1 MiB), not 2000000"},
	}
	if !reflect.DeepEqual(err, want) {
		t.Fatalf("problems:\n got %q\nwant %q", err, want)
	}
}

func TestScheduleProjectIsKnown(t *testing.T) {
	_, _, err := Check(writeConfig(t, `
schedules:
  s: {cron: "@daily", conversation: "app:a", prompt: p, project: nope}
`))
	want := Problems{{"schedules.s.project", `names project "nope", but projects: has none`}}
	if !reflect.DeepEqual(err, want) {
		t.Fatalf("problems:\n got %q\nwant %q", err, want)
	}
}
