package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/configs"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/projects"
)

// gitIn runs git in dir for a test, failing it on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitRemote is a bare repository with one commit ("first") on main that
// holds README.md "hello".
func gitRemote(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bare, work := filepath.Join(dir, "api.git"), filepath.Join(dir, "work")
	gitIn(t, dir, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	gitIn(t, dir, "init", "--quiet", "--initial-branch=main", work)
	writeFile(t, filepath.Join(work, "README.md"), "hello\n")
	gitIn(t, work, "add", "README.md")
	gitIn(t, work, "commit", "--quiet", "-m", "first")
	gitIn(t, work, "push", "--quiet", bare, "main")
	return bare
}

// projectDirs is where a conversation works in a git project: its
// worktree and its git directory (projects' layout).
func projectDirs(root, project, conv string) (worktree, gitDir string) {
	own := filepath.Join(root, ".projects", project, projects.ConversationID(conv))
	return filepath.Join(own, project), filepath.Join(own, "gitdir")
}

// Two conversations bound to one git project each change, add and commit
// the same file through real turns, in Codex's sandbox (bubblewrap), and
// leave a change uncommitted: each worktree holds its own change alone, on
// its own branch; neither reaches the other's; a conversation no project
// names works in the default project; each model request comes from the
// project's directory with the project's instructions, model and effort,
// and api's sandbox.read lets its commands read a directory misc's cannot;
// after /project switches alice to the default project, her next model
// request is a fresh session from its directory, with its instructions.
func TestE2ETwoConversationsOnOneGitProject(t *testing.T) {
	var script sm.Script
	e := newE2EIn(t, sm.ScriptFunc(func(r *sm.Request) (sm.Response, error) { return script.Next(r) }), "danger-full-access")
	e.sandbox = "workspace-write"
	bare := gitRemote(t)
	misc := t.TempDir() // the default project: an existing directory
	writeFile(t, filepath.Join(misc, "MISC.md"), "misc\n")
	shared := t.TempDir() // what api's sandbox.read adds to the default list
	writeFile(t, filepath.Join(shared, "SHARED.md"), "shared\n")
	e.extra = fmt.Sprintf(`projects:
  api:
    git: %q
    ref: main
    users: [alice, bob]
    instructions: "You work on the api service."
    model: other
    effort: high
    sandbox:
      read: [%s, %q]
  misc:
    path: %q
    default: true
    instructions: "You work on misc."
`, bare, strings.Join(configs.DefaultSandboxRead, ", "), shared, misc)
	root := e.workspace
	wtA, gitA := projectDirs(root, "api", "single:alice")
	wtB, gitB := projectDirs(root, "api", "single:bob")
	cloneObjects := filepath.Join(e.h.ShellHome, ".local", "state", "wecodex", "projects", "api", "clone.git", "objects")
	commit := func(who string) string {
		return "echo " + who + " > README.md && git add README.md && git -c user.name=" + who + " -c user.email=" + who + "@example.com commit --quiet -m " + who +
			" && git log --format=%s && git branch --show-current && pwd"
	}
	aliceProbes := []probe{
		{commit("alice"), 0, "alice\nfirst\n" + projects.Branch("single:alice") + "\n" + wtA + "\n"},
		{"echo alice-wip >> README.md && git status --porcelain", 0, " M README.md\n"},
	}
	bobProbes := []probe{
		{commit("bob"), 0, "bob\nfirst\n" + projects.Branch("single:bob") + "\n" + wtB + "\n"},
		{"echo bob-wip >> README.md && git status --porcelain", 0, " M README.md\n"},
		{"cat " + wtA + "/README.md", 1, "cat: " + wtA + "/README.md: No such file or directory\n"},
		{"cat " + shared + "/SHARED.md", 0, "shared\n"},
		{"ls " + gitA, 2, "ls: cannot access '" + gitA + "': No such file or directory\n"},
		// What git outside the sandbox obeys stays as wecodex made it.
		{"echo x >> " + gitB + "/config; touch " + gitB + "/hooks/post-checkout; echo x >> .git", 1,
			"/bin/bash: line 1: " + gitB + "/config: Read-only file system\n" +
				"touch: cannot touch '" + gitB + "/hooks/post-checkout': Read-only file system\n" +
				"/bin/bash: line 1: .git: Read-only file system\n"},
		// The clone every conversation borrows objects from is read-only.
		{"touch " + cloneObjects + "/x", 1, "touch: cannot touch '" + cloneObjects + "/x': Read-only file system\n"},
	}
	carolProbes := []probe{
		{"pwd && cat MISC.md", 0, misc + "\nmisc\n"},
		{"cat " + shared + "/SHARED.md", 1, "cat: " + shared + "/SHARED.md: No such file or directory\n"},
	}
	script = sm.ByPrompt(map[string][]sm.Response{
		"alice works": probeReplies("alice", aliceProbes),
		"bob works":   probeReplies("bob", bobProbes),
		"carol works": probeReplies("carol", carolProbes),
		"alice moved": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "In misc now."))},
	})

	b := e.serve(t, "5m30s")
	ctx := within(t, 4*time.Minute)
	for _, m := range []wecomtest.Message{{From: "alice", Text: "alice works"}, {From: "bob", Text: "bob works"}, {From: "carol", Text: "carol works"}} {
		s, err := b.sim.Send(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if last, seen := follow(t, ctx, b.sim, s.ID); !strings.HasSuffix(last.Content, m.From+" probed.") {
			t.Fatalf("%s's final frame %q; frames seen %q; logs:\n%s", m.From, last.Content, seen, b.logs)
		}
	}
	// /project switches alice: her next turn is a fresh session in misc.
	alice := webhookChat(b)
	if got, want := alice.say(t, ctx, "/project misc"), "OK — this conversation now works in `misc`. The next message starts a fresh session there."; got != want {
		t.Fatalf("/project misc answered %q, want %q", got, want)
	}
	if got := alice.turn(t, ctx, "alice moved"); got != "In misc now." {
		t.Fatalf("alice's turn after /project misc ended %q", got)
	}
	reqs := e.h.Server.ModelRequests()
	moved := firstRequest(t, reqs, "alice moved")
	if !anyContains(moved.Developer, "You work on misc.") || anyContains(moved.Developer, "You work on the api service.") ||
		!strings.Contains(string(moved.Body), "<cwd>"+misc+"</cwd>") || strings.Contains(string(moved.Body), "alice works") {
		t.Errorf("after /project misc alice's model request has developer messages %q, cwd %s named: %v, her api turn in its history: %v; want misc's instructions, misc's cwd, a fresh session",
			moved.Developer, misc, strings.Contains(string(moved.Body), "<cwd>"+misc+"</cwd>"), strings.Contains(string(moved.Body), "alice works"))
	}
	checkProbes(t, reqs, "alice", aliceProbes)
	checkProbes(t, reqs, "bob", bobProbes)
	checkProbes(t, reqs, "carol", carolProbes)

	for who, dirs := range map[string][2]string{"alice": {wtA, gitA}, "bob": {wtB, gitB}} {
		if got := readFile(t, filepath.Join(dirs[0], "README.md")); got != who+"\n"+who+"-wip\n" {
			t.Errorf("%s's README.md = %q; want only %s's change", who, got, who)
		}
		if got := gitIn(t, dirs[0], "status", "--porcelain"); got != "M README.md" {
			t.Errorf("%s's worktree status %q", who, got)
		}
		if got := gitIn(t, "", "--git-dir", dirs[1], "log", "--format=%s", projects.Branch("single:"+who)); got != who+"\nfirst" {
			t.Errorf("%s's branch log %q", who, got)
		}
	}
	for who, want := range map[string]struct{ instructions, cwd, model, effort string }{
		"alice": {"You work on the api service.", wtA, "other", "high"}, "bob": {"You work on the api service.", wtB, "other", "high"},
		"carol": {"You work on misc.", misc, "gpt-5.5", "medium"}, // the agent's
	} {
		r := firstRequest(t, reqs, who+" works")
		if r.Model != want.model || r.Effort != want.effort {
			t.Errorf("%s's model request asks %q at effort %q; want %q at %q", who, r.Model, r.Effort, want.model, want.effort)
		}
		if !anyContains(r.Developer, want.instructions) {
			t.Errorf("%s's model request has developer messages %q; want one with %q", who, r.Developer, want.instructions)
		}
		if !strings.Contains(string(r.Body), "<cwd>"+want.cwd+"</cwd>") {
			t.Errorf("%s's model request does not name cwd %s", who, want.cwd)
		}
	}
}

// firstRequest is the first model request of the turn prompted with text.
func firstRequest(t *testing.T, reqs []sm.Request, text string) sm.Request {
	t.Helper()
	for _, r := range reqs {
		if r.UserText == text {
			return r
		}
	}
	t.Fatalf("no model request for %q", text)
	return sm.Request{}
}

func anyContains(texts []string, s string) bool {
	for _, t := range texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// A project's approval overrides agent.approval: with agent.approval ask, a
// turn in a project with approval: allow runs the command that leaves the
// sandbox without waiting for anyone.
func TestE2EProjectApprovalOverridesTheAgents(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1"), "")
	open := t.TempDir()
	e.extra = fmt.Sprintf("projects:\n  open:\n    path: %q\n    users: [alice]\n    approval: allow\n", open)
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", Text: "run it"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	if !strings.HasSuffix(last.Content, "All done.") {
		t.Fatalf("final frame %q", last.Content)
	}
	for _, f := range seen {
		if strings.Contains(f, "Waiting for approval") {
			t.Fatalf("the turn waited for approval: %q", f)
		}
	}
	if got := readFile(t, filepath.Join(open, "approved.txt")); got != "ran\n" {
		t.Fatalf("approved.txt in the project = %q", got)
	}
}
