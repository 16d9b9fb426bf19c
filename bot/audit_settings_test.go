package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/audit"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/projects"
	"github.com/wecodex/wecodex/store"
)

// The settings a chat changes and the refusals intake makes are each one
// record, after the message's own, where they happen: /model, /effort,
// /mode (picked, or full refused to a non-approver) and /project (picked, or refused as not open to the conversation), and a
// message beyond access.max_queued_per_user. No engine runs turns here, so
// the first message stays queued and fills alice's backlog of one.
func TestAuditRecordsSettingsAndRefusals(t *testing.T) {
	st := testenv.OpenStores(t, testenv.Prefix(t, "auditsettings"))
	trail, err := audit.Open(audit.Options{Replica: "replica-a", Seq: store.NewAudit(st.DB), Stream: store.NewAudit(st.DB), MaxLen: 1000})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	reg, err := projects.New([]projects.Project{
		{Name: "web", Path: t.TempDir(), Users: []string{"alice"}},
		{Name: "ops", Path: t.TempDir(), Users: []string{"carol"}},
	}, projects.Options{StateDir: t.TempDir(), WorkspaceRoot: root, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	agent := codex.New(codex.Options{Bin: "codex-is-never-started"})
	t.Cleanup(func() { _ = agent.Close() })
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: root, UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, MaxQueuedPerUser: 1,
		Access:   bot.Access{AllowUsers: []string{"alice"}},
		Models:   bot.ModelConfig{Allowed: []string{"gpt-5.5", "other"}},
		Projects: registryProjects{reg}, Auditor: trail,
	}, testenv.EngineStore(st), agent, chattest.New())
	if err != nil {
		t.Fatal(err)
	}
	dm := chattest.DM("alice")
	for i, text := range []string{"/model other", "/effort high", "/mode read-only", "/mode full", "/project ops", "/project web", "first", "second"} {
		conv := dm
		if text == "second" {
			conv = bot.Conversation{Kind: "app", ID: "alice"} // another of alice's: her backlog spans them
		}
		if _, err := e.Receive(t.Context(), chattest.Message(string(rune('a'+i)), conv, "alice", text)); err != nil {
			t.Fatal(err)
		}
	}
	if err := trail.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range records(t, st) {
		got = append(got, strings.Join([]string{r.Kind, r.Conversation, r.MsgID, r.Setting, r.Value, r.Reason, r.Detail}, " "))
		// audit.include_text is off (the default): a message's length, never its text.
		if r.Text != "" || (r.Kind == "message" && (r.Length == nil || *r.Length == 0)) {
			t.Errorf("%s record %s has text %q and length %v; want no text, only the length", r.Kind, r.MsgID, r.Text, r.Length)
		}
	}
	want := []string{
		"message dm:alice a    ",
		"setting dm:alice  model other  ",
		"message dm:alice b    ",
		"setting dm:alice  effort high  ",
		"message dm:alice c    ",
		"setting dm:alice  mode read-only  ",
		"message dm:alice d    ",
		"refused dm:alice d   not_approver mode full",
		"message dm:alice e    ",
		"refused dm:alice e   project ops",
		"message dm:alice f    ",
		"setting dm:alice  project web  ",
		"message dm:alice g    ",
		"message app:alice h    ",
		"refused app:alice h   backlog_full ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
