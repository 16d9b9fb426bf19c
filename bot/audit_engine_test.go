package bot_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// auditReplica is one replica of the engine in a test: its engine, its chat
// and its audit trail, on the shared Redis and the shared Codex home.
type auditReplica struct {
	e    *bot.Engine
	chat *chattest.Chat
	log  *audit.Log
}

// startAuditReplica starts replica name; run says whether it takes turns
// (a replica that does not only answers callbacks, so which replica runs a
// turn is never a race).
func startAuditReplica(t *testing.T, name string, h *codextest.Harness, st *testenv.Stores, cfg bot.Config, secrets []string, run bool) *auditReplica {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log,
		Sandbox: "workspace-write", ApprovalPolicy: "on-request"})
	t.Cleanup(func() { _ = agent.Close() })
	trail, err := audit.Open(audit.Options{Replica: name, Seq: store.NewAudit(st.DB), Stream: store.NewAudit(st.DB),
		MaxLen: 1000, IncludeText: true, Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Replica, cfg.WorkspaceRoot, cfg.Logger = name, h.Workspace, log
	cfg.LeaseTTL, cfg.HeartbeatTTL, cfg.UpdateInterval = store.LeaseTTL, store.ReplicaTTL, time.Millisecond
	cfg.Auditor = trail
	parts := testenv.EngineStore(st)
	parts.Limits = store.NewLimits(st.DB)
	chat := chattest.New()
	e, err := bot.New(cfg, parts, agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	r := &auditReplica{e: e, chat: chat, log: trail}
	if run {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx) }()
		t.Cleanup(func() { stop(); <-done; _ = trail.Close() })
	} else {
		t.Cleanup(func() { _ = trail.Close() })
	}
	return r
}

// records are the audit stream's records, oldest first.
func records(t *testing.T, st *testenv.Stores) []audit.Record {
	t.Helper()
	var out []audit.Record
	err := store.NewAudit(st.DB).ReadAudit(t.Context(), time.Time{}, func(e store.AuditEntry) error {
		r, err := audit.Decode(e.Record)
		out = append(out, r)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The secrets of this test: a configured one (say, the bot's token) and one
// in a command's environment.
const (
	configSecret  = "tok-9f3a77c1e2"
	commandSecret = "hunter2hunter2"
)

// A full turn with an approval, alice asking in a room on replica a, bob
// (no approver) refused when he tries to approve it, and carol (an admin,
// the approver) deciding from her own chat on replica b,
// writes exactly these records, in order, numbered per conversation, each
// with the right people and replica; and no secret reaches any record,
// neither the configured one alice typed nor the one in the command's
// environment.
func TestAuditTrailOfATurnWithAnApproval(t *testing.T) {
	cmd := "API_TOKEN=" + commandSecret + " echo ran >> approved.txt"
	h := codextest.StartWith(t, sm.Sequence(
		sm.Reply(sm.EscalatedExecCommand("call-1", cmd, "writes a file")).WithUsage(sm.Usage{InputTokens: 1000, OutputTokens: 50}),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")).WithUsage(sm.Usage{InputTokens: 1300, CachedInputTokens: 1000, OutputTokens: 70}),
	), sm.HomeOptions{ApprovalPolicy: "on-request"})
	st := testenv.OpenStores(t, testenv.Prefix(t, "audit"))
	cfg := bot.Config{Approval: "ask", Access: bot.Access{AllowUsers: []string{"alice", "bob"}, Admins: []string{"carol"}}}
	secrets := []string{configSecret}
	a := startAuditReplica(t, "replica-a", h, st, cfg, secrets, true)
	b := startAuditReplica(t, "replica-b", h, st, cfg, secrets, false)
	ctx := t.Context()
	room, dm := chattest.Room("team"), chattest.DM("carol")

	if _, err := a.e.Receive(ctx, chattest.Message("m1", room, "alice", "write the file with "+configSecret)); err != nil {
		t.Fatal(err)
	}
	waitForRecord(t, st, "approval_asked")
	if _, err := b.e.Receive(ctx, chattest.Message("m1b", room, "bob", "/approve 1")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.e.Receive(ctx, chattest.Message("m2", dm, "carol", "/approve 1")); err != nil {
		t.Fatal(err)
	}
	a.chat.WaitFor(t, room, "finish")
	waitForRecord(t, st, "turn_ended")

	got := records(t, st)
	turn := ""
	for _, r := range got {
		if r.Kind == "turn_started" {
			turn = r.Turn
		}
	}
	if turn == "" {
		t.Fatalf("no turn_started record in %s", dump(got))
	}
	// Each record without its time, which only must be in order.
	want := []string{
		`{"kind":"message","user":"alice","conversation":"room:team","channel":"chattest","replica":"replica-a","seq":1,"msgid":"m1","length":34,"text":"write the file with REDACTED"}`,
		`{"kind":"turn_started","user":"alice","conversation":"room:team","channel":"chattest","replica":"replica-a","turn":"T","seq":2}`,
		`{"kind":"approval_asked","user":"alice","conversation":"room:team","channel":"chattest","replica":"replica-a","turn":"T","seq":3,"approval":1,"what":"WHAT"}`,
		`{"kind":"message","user":"bob","conversation":"room:team","channel":"chattest","replica":"replica-b","seq":4,"msgid":"m1b","length":10,"text":"/approve 1"}`,
		`{"kind":"refused","user":"bob","conversation":"room:team","channel":"chattest","replica":"replica-b","seq":5,"msgid":"m1b","approval":1,"reason":"not_approver","detail":"approve"}`,
		`{"kind":"message","user":"carol","conversation":"dm:carol","channel":"chattest","replica":"replica-b","seq":1,"msgid":"m2","length":10,"text":"/approve 1"}`,
		`{"kind":"approval_decided","user":"alice","conversation":"room:team","channel":"chattest","replica":"replica-a","turn":"T","seq":6,"approval":1,"verdict":"approve","by":"carol"}`,
		`{"kind":"command","user":"alice","conversation":"room:team","channel":"chattest","replica":"replica-a","turn":"T","seq":7,"command":"COMMAND","exit_code":0}`,
		`{"kind":"turn_ended","user":"alice","conversation":"room:team","channel":"chattest","replica":"replica-a","turn":"T","seq":8,"outcome":"finished","duration_ms":0,"tokens":{"input":2300,"cached_input":1000,"output":120,"reasoning":0,"total":2420}}`,
	}
	lines := recordLines(t, got, turn)
	// What the card and the log describe, cut as the card cuts it, with
	// the environment's value left out.
	what := []rune("`/bin/bash -c 'API_TOKEN=" + commandSecret + " echo ran >> approved.txt'` in " + bot.WorkspaceDir(h.Workspace, "room:team"))
	what = append(what[:99], '…')
	wantWhat, _ := marshal(strings.Replace(string(what), commandSecret, "…", 1))
	for i := range want {
		want[i] = strings.Replace(want[i], `"what":"WHAT"`, `"what":`+string(wantWhat), 1)
		want[i] = strings.Replace(want[i], `"command":"COMMAND"`, `"command":"/bin/bash -c 'API_TOKEN=… echo ran >> approved.txt'"`, 1)
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range lines {
		for _, s := range []string{configSecret, commandSecret} {
			if strings.Contains(l, s) {
				t.Errorf("a record holds the secret %q: %s", s, l)
			}
		}
	}
}

// recordLines are the records as JSON lines, in order, without their time
// (which only must not go back), with a duration of 0 and the turn's id as
// T, so a test can compare them exactly.
func recordLines(t *testing.T, rs []audit.Record, turn string) []string {
	t.Helper()
	var lines []string
	var last time.Time
	for _, r := range rs {
		if r.Time.Before(last) {
			t.Errorf("record %s %d is older than the one before it", r.Kind, r.Seq)
		}
		last = r.Time
		r.Time = time.Time{}
		if r.DurationMS != nil {
			zero := int64(0)
			r.DurationMS = &zero
		}
		b, _ := marshal(r)
		line := strings.Replace(string(b), `"time":"0001-01-01T00:00:00Z",`, "", 1)
		line = strings.ReplaceAll(line, `"turn":"`+turn+`"`, `"turn":"T"`)
		lines = append(lines, line)
	}
	return lines
}

// marshal is json.Marshal without HTML escapes, as the trail writes.
func marshal(v any) ([]byte, error) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return []byte(strings.TrimSuffix(buf.String(), "\n")), err
}

func dump(rs []audit.Record) string {
	var b strings.Builder
	for _, r := range rs {
		j, _ := json.Marshal(r)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// waitForRecord waits until the stream holds a record of kind.
func waitForRecord(t *testing.T, st *testenv.Stores, kind string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard, not a speed limit
	for {
		for _, r := range records(t, st) {
			if r.Kind == kind {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s record came; the stream holds:\n%s", kind, dump(records(t, st)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
