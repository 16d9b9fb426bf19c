package bot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/projects"
)

// A request asked in a project with its own approvers (dave) is theirs to
// decide: on a second replica, from their own chats, erin (the global
// approver, not the project's) is refused and does not see it in /pending,
// dave sees it and approves it (an approver of a project, like a global
// one, need not be on the access list), and the command runs once.
func TestProjectApproversDecideTheirProjectsRequests(t *testing.T) {
	h := codextest.StartWith(t, sm.Sequence(
		sm.Reply(sm.EscalatedExecCommand("call-1", "echo ran >> approved.txt", "writes a file")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")),
	), sm.HomeOptions{ApprovalPolicy: "on-request"})
	dir := t.TempDir()
	reg, err := projects.New([]projects.Project{
		{Name: "api", Path: dir, Chats: []string{"team"}, Settings: projects.Settings{Approvers: []string{"dave"}}},
	}, projects.Options{WorkspaceRoot: h.Workspace, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	st := testenv.OpenStores(t, testenv.Prefix(t, "projapprovers"))
	cfg := bot.Config{Approval: "ask", Projects: registryProjects{reg},
		Access: bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"team"}, Admins: []string{"carol"}, Approvers: []string{"erin"}}}
	a := startAuditReplica(t, "replica-a", h, st, cfg, nil, true)
	b := startAuditReplica(t, "replica-b", h, st, cfg, nil, false)
	room := chattest.Room("team")
	if _, err := a.e.Receive(t.Context(), chattest.Message("m1", room, "alice", "write the file")); err != nil {
		t.Fatal(err)
	}
	waitForRecord(t, st, "approval_asked")

	full := "`/bin/bash -c 'echo ran >> approved.txt'` in " + dir
	what := cut100(full)
	for i, c := range []struct{ user, text, want string }{
		{"erin", "/pending", "Nothing is waiting for your decision."},
		{"erin", "/approve 1", "Only dave may decide #1."},
		{"dave", "/pending", "Waiting for your decision:\n#1 from alice in room:team: " + what + " — /approve 1 or /deny 1"},
		{"dave", "/approve 1", "OK — #1 approved by dave: " + what},
	} {
		rc, err := b.e.Receive(t.Context(), chattest.Message(c.user+string(rune('0'+i)), chattest.DM(c.user), c.user, c.text))
		if err != nil {
			t.Fatal(err)
		}
		if rc.Reply.Text != c.want {
			t.Errorf("%s's %s on replica b:\n%q\nwant\n%q", c.user, c.text, rc.Reply.Text, c.want)
		}
	}
	events := a.chat.WaitFor(t, room, "finish")
	card := "card: write the file | [tool: /bin/bash -c 'echo ran >> approved.txt' (completed); " +
		"info: Approval #1 asked of dave: " + full + " — writes a file; info: #1 approved by dave: " + what + "] | Done. | done"
	if len(events) != 4 || events[2] != card {
		t.Errorf("the turn's card:\n%q\nwant\n%q", events, card)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "approved.txt")); err != nil || string(b) != "ran\n" {
		t.Fatalf("approved.txt = %q (%v), want the approved command run once", b, err)
	}
}

// cut100 is s cut as the card and the commands cut a request's
// description: 100 characters at most, the last one "…".
func cut100(s string) string {
	r := []rune(s)
	if len(r) <= 100 {
		return s
	}
	return string(r[:99]) + "…"
}
