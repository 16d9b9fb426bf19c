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
	if short != "edit a.go, b.go" || full != "Edit 2 files\n- /w/a.go\n- /w/sub/b.go — fix the build" {
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
