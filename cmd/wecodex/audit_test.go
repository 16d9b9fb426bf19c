package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cli"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// auditConfig writes a config whose audit trail is the Redis stream under
// prefix (and audit.file, when file is set).
func auditConfig(t *testing.T, prefix, file string) string {
	t.Helper()
	opt := testenv.RedisOptions(t)
	path := filepath.Join(t.TempDir(), "wecodex.yaml")
	yaml := fmt.Sprintf("redis:\n  addr: %q\n  password: %q\n  db: %d\n  prefix: %q\naudit:\n  redis: true\n  file: %q\n",
		opt.Addr, opt.Password, opt.DB, prefix, file)
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeTrail writes this test's trail as two replicas would: alice's and
// bob's turns in a group, bob deciding alice's approval, and carol's
// refusal.
func writeTrail(t *testing.T, prefix, file string) {
	t.Helper()
	db := testenv.OpenStore(t, prefix)
	ctx := context.Background()
	logs := map[string]*audit.Log{}
	for _, r := range []string{"replica-a", "replica-b"} {
		l, err := audit.Open(audit.Options{Replica: r, Seq: store.NewAudit(db), Stream: store.NewAudit(db), File: file, MaxLen: 1000})
		if err != nil {
			t.Fatal(err)
		}
		logs[r] = l
	}
	tok := func(in, out int64) *acpbridge.Tokens {
		return &acpbridge.Tokens{Input: in, Output: out, Total: in + out}
	}
	for _, w := range []struct {
		replica string
		e       bot.AuditEvent
	}{
		{"replica-a", bot.AuditEvent{Kind: bot.AuditMessage, User: "alice", Conversation: "group:team", Channel: "aibot", MsgID: "m1", Length: 5}},
		{"replica-a", bot.AuditEvent{Kind: bot.AuditTurnStarted, User: "alice", Conversation: "group:team", Channel: "aibot", Turn: "t1", Project: "web"}},
		{"replica-a", bot.AuditEvent{Kind: bot.AuditApprovalAsked, User: "alice", Conversation: "group:team", Channel: "aibot", Turn: "t1", Project: "web", Approval: 1, What: "rm x"}},
		{"replica-b", bot.AuditEvent{Kind: bot.AuditMessage, User: "bob", Conversation: "single:bob", Channel: "aibot", MsgID: "m2", Length: 10}},
		{"replica-a", bot.AuditEvent{Kind: bot.AuditApprovalDecided, User: "alice", Conversation: "group:team", Channel: "aibot", Turn: "t1", Project: "web", Approval: 1, Verdict: bot.VerdictApprove, By: "bob"}},
		{"replica-a", bot.AuditEvent{Kind: bot.AuditTurnEnded, User: "alice", Conversation: "group:team", Channel: "aibot", Turn: "t1", Project: "web", Outcome: "finished", Duration: 1500 * time.Millisecond, Tokens: tok(2000, 100)}},
		{"replica-b", bot.AuditEvent{Kind: bot.AuditTurnStarted, User: "bob", Conversation: "group:team", Channel: "aibot", Turn: "t2", Project: "web"}},
		{"replica-b", bot.AuditEvent{Kind: bot.AuditTurnEnded, User: "bob", Conversation: "group:team", Channel: "aibot", Turn: "t2", Project: "web", Outcome: "finished", Duration: time.Second, Tokens: tok(300, 20)}},
		{"replica-b", bot.AuditEvent{Kind: bot.AuditTurnStarted, User: "bob", Conversation: "single:bob", Channel: "aibot", Turn: "t3"}},
		{"replica-b", bot.AuditEvent{Kind: bot.AuditTurnEnded, User: "bob", Conversation: "single:bob", Channel: "aibot", Turn: "t3", Outcome: "failed", Duration: time.Second, Tokens: tok(400, 0)}},
		{"replica-a", bot.AuditEvent{Kind: bot.AuditRefused, User: "carol", Conversation: "single:carol", Channel: "aibot", MsgID: "m9", Reason: bot.LimitTurns}},
	} {
		logs[w.replica].Audit(ctx, w.e)
	}
	for _, l := range logs {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, nil, &out, &errOut); code != cli.ExitOK {
		t.Fatalf("wecodex %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

// withoutTimes drops each JSON line's time, which only the order checks.
func withoutTimes(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if i := strings.Index(l, `"time":"`); i >= 0 {
			j := strings.Index(l[i+8:], `"`)
			l = l[:i] + l[i+8+j+2:]
		}
		out = append(out, l)
	}
	return out
}

// `wecodex audit --user bob` shows bob's records only, in order, from the
// stream and from audit.file alike; --kind and --conversation narrow it.
func TestAuditCommandShowsOneUsersRecords(t *testing.T) {
	prefix := testenv.Prefix(t, "auditcli")
	file := filepath.Join(t.TempDir(), "audit.jsonl")
	writeTrail(t, prefix, file)
	cfg := auditConfig(t, prefix, file)
	want := []string{
		`{"kind":"message","user":"bob","conversation":"single:bob","channel":"aibot","replica":"replica-b","seq":1,"msgid":"m2","length":10}`,
		`{"kind":"turn_started","user":"bob","conversation":"group:team","channel":"aibot","replica":"replica-b","turn":"t2","seq":6,"project":"web"}`,
		`{"kind":"turn_ended","user":"bob","conversation":"group:team","channel":"aibot","replica":"replica-b","turn":"t2","seq":7,"project":"web","outcome":"finished","duration_ms":1000,"tokens":{"input":300,"cached_input":0,"output":20,"reasoning":0,"total":320}}`,
		`{"kind":"turn_started","user":"bob","conversation":"single:bob","channel":"aibot","replica":"replica-b","turn":"t3","seq":2}`,
		`{"kind":"turn_ended","user":"bob","conversation":"single:bob","channel":"aibot","replica":"replica-b","turn":"t3","seq":3,"outcome":"failed","duration_ms":1000,"tokens":{"input":400,"cached_input":0,"output":0,"reasoning":0,"total":400}}`,
	}
	if got := withoutTimes(runCLI(t, "audit", "--config", cfg, "--user", "bob")); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit --user bob:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// audit.file holds the same records, line for line.
	fileCfg := filepath.Join(t.TempDir(), "file.yaml")
	if err := os.WriteFile(fileCfg, []byte(fmt.Sprintf("audit:\n  file: %q\n", file)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := withoutTimes(runCLI(t, "audit", "--config", fileCfg, "--user", "bob")); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit --user bob from audit.file:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := withoutTimes(runCLI(t, "audit", "--config", cfg, "--user", "bob", "--kind", "turn_ended", "--conversation", "single:bob")); strings.Join(got, "\n") != want[4] {
		t.Errorf("audit --user bob --kind turn_ended --conversation single:bob:\n%s\nwant\n%s", strings.Join(got, "\n"), want[4])
	}
	table := runCLI(t, "audit", "--config", cfg, "--kind", "refused", "--table", "--since", "1h")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME") || !strings.HasSuffix(lines[1], "refused  carol  single:carol  1    replica-a  -     msgid=m9 reason=turns_per_user_per_hour") {
		t.Errorf("audit --kind refused --table:\n%s", table)
	}
}

// `wecodex usage` answers who used how much this week on the same trail:
// turns and tokens from each turn's end, approvals asked on a user's turns
// and decided by them, per user and per project. dave's turn of eight days
// ago is last week's: --since 30d counts it.
func TestUsageCommandSaysWhoUsedHowMuch(t *testing.T) {
	prefix := testenv.Prefix(t, "usagecli")
	db := testenv.OpenStore(t, prefix)
	old := time.Now().Add(-8 * 24 * time.Hour)
	rec := fmt.Sprintf(`{"time":%q,"kind":"turn_ended","user":"dave","conversation":"single:dave","channel":"aibot","replica":"replica-a","turn":"t0","seq":2,"outcome":"finished","tokens":{"input":9000,"output":999,"total":9999}}`,
		old.UTC().Format(time.RFC3339Nano))
	if err := testenv.Redis(t).XAdd(t.Context(), &redis.XAddArgs{Stream: db.Keys().AuditStream(), ID: fmt.Sprintf("%d-0", old.UnixMilli()), Values: []any{"r", rec}}).Err(); err != nil {
		t.Fatal(err)
	}
	writeTrail(t, prefix, "")
	cfg := auditConfig(t, prefix, "")
	week := `USER   TURNS  TOKENS  INPUT  OUTPUT  APPROVALS ASKED  APPROVALS DECIDED
alice  1      2100    2000   100     1                0
bob    2      720     700    20      0                1

PROJECT  TURNS  TOKENS  INPUT  OUTPUT  APPROVALS ASKED  APPROVALS DECIDED
web      2      2420    2300   120     1                0
-        1      400     400    0       0                0
`
	if got := runCLI(t, "usage", "--config", cfg); got != week {
		t.Errorf("usage:\n%s\nwant\n%s", got, week)
	}
	month := `USER   TURNS  TOKENS  INPUT  OUTPUT  APPROVALS ASKED  APPROVALS DECIDED
dave   1      9999    9000   999     0                0
alice  1      2100    2000   100     1                0
bob    2      720     700    20      0                1

PROJECT  TURNS  TOKENS  INPUT  OUTPUT  APPROVALS ASKED  APPROVALS DECIDED
-        2      10399   9400   999     0                0
web      2      2420    2300   120     1                0
`
	if got := runCLI(t, "usage", "--config", cfg, "--since", "30d"); got != month {
		t.Errorf("usage --since 30d:\n%s\nwant\n%s", got, month)
	}
}
