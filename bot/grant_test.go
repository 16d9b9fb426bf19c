package bot

import (
	"slices"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

func commandRequest(session, command string) acp.RequestPermissionRequest {
	return acp.RequestPermissionRequest{SessionId: acp.SessionId(session), ToolCall: acp.ToolCallUpdate{
		Kind: acp.Ptr(acp.ToolKindExecute), Title: acp.Ptr(command), RawInput: map[string]any{"command": command}}}
}

// The prefix rule: the program and up to two plain subcommand words, only
// for a command every word of which the shell reads as itself.
func TestCommandPrefix(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []string // nil: no prefix, granted exactly
	}{
		{"/bin/bash -c 'git push origin main'", []string{"git", "push", "origin"}},
		{"/bin/bash -lc 'npm run build -- --watch'", []string{"npm", "run", "build"}},
		{"/bin/bash -c 'go test ./...'", []string{"go", "test"}},
		{"/bin/bash -c 'touch one.txt'", []string{"touch"}},
		{"/bin/bash -c 'rm -rf build'", []string{"rm"}},
		{"/bin/bash -c ls", []string{"ls"}},
		{"make deploy", []string{"make", "deploy"}},
		{"/usr/bin/git status", []string{"/usr/bin/git", "status"}},
		{"/bin/bash -c 'echo ran >> approved.txt'", nil},        // redirection
		{"/bin/bash -c 'git status; rm -rf ~'", nil},            // a list
		{"/bin/bash -c 'git log | head'", nil},                  // a pipe
		{"/bin/bash -c 'echo $HOME'", nil},                      // an expansion
		{"/bin/bash -c 'git commit -m '\"'\"'fix'\"'\"''", nil}, // quotes
		{"/bin/bash -c 'rm *.o'", nil},                          // a glob
		{"/bin/bash -c 'FOO=1 make'", nil},                      // an assignment first
		{"/bin/bash -c 'env make deploy'", nil},                 // runs another
		{"/bin/bash -c 'sudo make install'", nil},               // runs another
		{"/bin/bash -c 'xargs rm'", nil},                        // runs another
		{"/bin/bash -c 'bash deploy.sh'", nil},                  // a shell
		{"/bin/bash -c 'make\ndeploy'", nil},                    // a newline
		{"", nil},
	} {
		got, ok := commandPrefix(tc.cmd)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("commandPrefix(%q) = %q %v, want %q", tc.cmd, got, ok, tc.want)
		}
	}
}

// A grant covers its own session's commands that start with its prefix
// and are plain throughout, an exact grant only the same command, and a
// file grant only patches within its files.
func TestGrantCovers(t *testing.T) {
	g, ok := grantFor(commandRequest("th1", "/bin/bash -c 'touch one.txt'"))
	if !ok || !slices.Equal(g.Prefix, []string{"touch"}) || g.what() != "every `touch …` command" {
		t.Fatalf("grantFor(touch one.txt) = %+v %v (%s)", g, ok, g.what())
	}
	for _, tc := range []struct {
		session, cmd string
		want         bool
	}{
		{"th1", "/bin/bash -c 'touch two.txt'", true},
		{"th1", "/bin/bash -c 'touch'", true},
		{"th1", "/bin/bash -c 'touch x; rm -rf ~'", false},
		{"th1", "/bin/bash -c 'touch $(rm -rf ~)'", false},
		{"th1", "/bin/bash -c 'touchy x'", false},
		{"th1", "/bin/bash -c 'rm one.txt'", false},
		{"th2", "/bin/bash -c 'touch two.txt'", false}, // another session
		{"", "/bin/bash -c 'touch two.txt'", false},
	} {
		if got := g.covers(commandRequest(tc.session, tc.cmd)); got != tc.want {
			t.Errorf("grant touch in th1 covers %s %q = %v, want %v", tc.session, tc.cmd, got, tc.want)
		}
	}
	exact, _ := grantFor(commandRequest("th1", "/bin/bash -c 'echo ran >> approved.txt'"))
	if exact.Exact == "" || exact.what() != "`/bin/bash -c 'echo ran >> approved.txt'` again" {
		t.Fatalf("grantFor(echo ran >> approved.txt) = %+v (%s)", exact, exact.what())
	}
	if !exact.covers(commandRequest("th1", "/bin/bash -c 'echo ran >> approved.txt'")) ||
		exact.covers(commandRequest("th1", "/bin/bash -c 'echo ran >> other.txt'")) {
		t.Fatal("an exact grant must cover its command and nothing else")
	}
	edit := func(files ...string) acp.RequestPermissionRequest {
		var locs []acp.ToolCallLocation
		for _, f := range files {
			locs = append(locs, acp.ToolCallLocation{Path: f})
		}
		return acp.RequestPermissionRequest{SessionId: "th1", ToolCall: acp.ToolCallUpdate{Kind: acp.Ptr(acp.ToolKindEdit), Locations: locs}}
	}
	files, _ := grantFor(edit("/w/a.txt", "/w/b.txt"))
	if files.what() != "edits of a.txt, b.txt" || !files.covers(edit("/w/b.txt")) || files.covers(edit("/w/a.txt", "/w/c.txt")) ||
		g.covers(edit("/w/a.txt")) {
		t.Fatalf("file grant %+v: wrong coverage", files)
	}
}
