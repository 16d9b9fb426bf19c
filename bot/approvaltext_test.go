package bot

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func TestParseDecision(t *testing.T) {
	for _, tc := range []struct {
		cmd, text string
		v         Verdict
		id        int64
		ok        bool
	}{
		{"/approve", "/approve", VerdictApprove, 0, true},
		{"/approve", "/approve always", VerdictAlways, 0, true},
		{"/approve", "/APPROVE Always #3", VerdictAlways, 3, true},
		{"/approve", "/approve 12", VerdictApprove, 12, true},
		{"/deny", "/deny", VerdictDeny, 0, true},
		{"/deny", "/deny #2", VerdictDeny, 2, true},
		{"/deny", "/deny always", "", 0, false},
		{"/approve", "/approve 0", "", 0, false},
		{"/approve", "/approve 1 2", "", 0, false},
		{"/approve", "/approve please", "", 0, false},
	} {
		v, id, ok := parseDecision(tc.cmd, tc.text)
		if v != tc.v || id != tc.id || ok != tc.ok {
			t.Errorf("parseDecision(%q) = %q %d %v, want %q %d %v", tc.text, v, id, ok, tc.v, tc.id, tc.ok)
		}
	}
}

// A log line never shows an environment assignment's value.
func TestWithoutEnv(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"make test", "make test"},
		{"TOKEN=s3cret make deploy", "TOKEN=… make deploy"},
		{"/bin/bash -c 'API_KEY=\"a b\" curl -d x=1 host'", "/bin/bash -c 'API_KEY=… curl -d x=… host'"},
		{"env A=1 B='two' run", "env A=… B=… run"},
	} {
		if got := withoutEnv(tc.in); got != tc.want {
			t.Errorf("withoutEnv(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDescribeRequest(t *testing.T) {
	edit := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{
		ToolCallId: "p1", Title: acp.Ptr("Edit 2 files"), Kind: acp.Ptr(acp.ToolKindEdit),
		Locations: []acp.ToolCallLocation{{Path: "/w/a.go"}, {Path: "/w/sub/b.go"}},
		RawInput:  map[string]any{"reason": "fix the build"},
	}}
	short, full := describeRequest(edit)
	if short != "edit a.go, b.go" || full != "Edit 2 files: /w/a.go, /w/sub/b.go — fix the build" {
		t.Errorf("patch: short %q full %q", short, full)
	}
	cmd := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{
		ToolCallId: "c1", Title: acp.Ptr("ls"), Kind: acp.Ptr(acp.ToolKindExecute),
		RawInput: map[string]any{"command": "ls", "cwd": "/w"},
	}}
	short, full = describeRequest(cmd)
	if short != "`ls` in /w" || full != "`ls` in /w" {
		t.Errorf("command: short %q full %q", short, full)
	}
}

// Who may decide, and what the card and the refusals say about it, for each
// shape of access.approvers.
func TestApproversDecide(t *testing.T) {
	admins := []string{"carol"}
	for _, c := range []struct {
		name      string
		approvers []string
		// may: alice (the requester) once, alice always, carol once, dave once
		may               [4]bool
		asked, card, only string
	}{
		{"default: the admins", nil, [4]bool{false, false, true, false}, "an admin", "an admin", "an admin"},
		{"the requester too", []string{"requester"}, [4]bool{true, false, true, false}, "alice (or an admin)", "alice or an admin", "alice (who asked) or an admin"},
		{"named", []string{"dave", "erin"}, [4]bool{false, false, false, true}, "dave or erin", "dave or erin", "dave or erin"},
		{"named and the requester", []string{"requester", "dave"}, [4]bool{true, false, false, true}, "alice (or dave)", "alice or dave", "alice (who asked) or dave"},
	} {
		a := Access{Admins: admins, Approvers: c.approvers}
		got := [4]bool{a.mayDecide("alice", "alice", false), a.mayDecide("alice", "alice", true), a.mayDecide("carol", "alice", false), a.mayDecide("dave", "alice", false)}
		if got != c.may {
			t.Errorf("%s: may decide %v, want %v", c.name, got, c.may)
		}
		if a.asked("alice") != c.asked || a.forCard("alice") != c.card || a.only("alice", false) != c.only {
			t.Errorf("%s: asked %q, card %q, only %q; want %q, %q, %q", c.name, a.asked("alice"), a.forCard("alice"), a.only("alice", false), c.asked, c.card, c.only)
		}
	}
	if (Access{}).mayDecide("", "", false) {
		t.Error("an empty user decides")
	}
}
