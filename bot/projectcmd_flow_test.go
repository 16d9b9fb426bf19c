package bot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/projects"
)

// writes is the scripted reply of a turn that appends line to README.md
// and then says so.
func writes(callID, line string) []sm.Response {
	return []sm.Response{
		sm.Reply(sm.ExecCommand(callID, fmt.Sprintf("printf '%s\\n' >> README.md", line))),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Wrote it.")),
	}
}

// Two conversations on one git project (alice's 1:1 chat, by her name;
// the team room, by its chat) each change README.md in their own
// worktree; /diff shows exactly each one's change, /reset asks first,
// refuses while a turn runs and then restores the file; /project lists
// what alice may use, refuses a project bound to others and an unknown
// one, and switches: the next turn runs in a fresh session in the other
// project's directory. None of the commands reaches the model.
func TestProjectCommands(t *testing.T) {
	gate := sm.NewGate()
	r := newProjectRig(t, sm.ByPrompt(map[string][]sm.Response{
		"write alice": writes("c1", "alice line"),
		"write team":  writes("c2", "team line"),
		"hold on":     {sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Held ", "then done.")).WithHold(1, gate)},
		"where now":   {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "In web."))},
	}))
	dm, room := chattest.DM("alice"), chattest.Room("team")
	r.turn(t, "m1", dm, "alice", "write alice")
	r.turn(t, "m2", room, "carol", "write team")
	requests := len(r.h.Server.ModelRequests())
	// The team room shares one session (group_sessions: shared): its
	// prompt names who asks.
	if got := firstPrompt(t, r.h.Server.ModelRequests(), "write team"); got != "From: carol\n\nwrite team" {
		t.Errorf("the shared room's prompt %q, want it to name carol", got)
	}

	mine, theirs := r.workspace(t, "api", dm), r.workspace(t, "api", room)
	if got := readFile(t, filepath.Join(mine.Dir, "README.md")); got != "hello\nalice line\n" {
		t.Fatalf("alice's worktree README.md = %q", got)
	}
	if got := readFile(t, filepath.Join(theirs.Dir, "README.md")); got != "hello\nteam line\n" {
		t.Fatalf("the team's worktree README.md = %q", got)
	}
	for conv, line := range map[bot.Conversation]string{dm: "alice line", room: "team line"} {
		w := r.workspace(t, "api", conv)
		want := fmt.Sprintf("**Changes in `api` on `%s`** against the project's ref: 1 file, +1 −0\n"+
			"- `README.md` +1 −0\n\n```diff\n"+
			"diff --git a/README.md b/README.md\nindex %s..%s 100644\n--- a/README.md\n+++ b/README.md\n"+
			"@@ -1 +1,2 @@\n hello\n+%s\n```", projects.Branch(conv.Key()), blob(t, "hello\n"), blob(t, "hello\n"+line+"\n"), line)
		if got := r.say(t, "diff-"+conv.ID, conv, "alice", "/diff"); got != want {
			t.Errorf("/diff in %s:\n%s\nwant\n%s", conv.Key(), got, want)
		}
		if w.Branch != projects.Branch(conv.Key()) {
			t.Errorf("%s works on %s, want %s", conv.Key(), w.Branch, projects.Branch(conv.Key()))
		}
	}

	// /reset asks first, and refuses while a turn runs.
	if got, want := r.say(t, "r1", room, "carol", "/reset"), "This discards every change this conversation made in `api` (its branch's commits, edits and new files) and cannot be undone. Send `/reset yes` to do it."; got != want {
		t.Fatalf("/reset = %q, want %q", got, want)
	}
	r.say(t, "m3", room, "carol", "hold on")
	<-gate.Reached()
	if got, want := r.say(t, "r2", room, "carol", "/reset yes"), "A turn is running here: `/reset yes` once it has ended (or `/stop` it first)."; got != want {
		t.Fatalf("/reset yes mid-turn = %q, want %q", got, want)
	}
	gate.Release()
	r.chat.WaitForCount(t, room, "finish", 2)
	r.leaseFree(t, room) // the card ends just before the lease is released
	requests++
	if got, want := r.say(t, "r3", room, "carol", "/reset yes"), "OK — `api` is back at the project's ref: every change of this conversation there is gone."; got != want {
		t.Fatalf("/reset yes = %q, want %q", got, want)
	}
	if got := readFile(t, filepath.Join(theirs.Dir, "README.md")); got != "hello\n" {
		t.Fatalf("after /reset yes the team's README.md = %q, want hello", got)
	}
	if got := readFile(t, filepath.Join(mine.Dir, "README.md")); got != "hello\nalice line\n" {
		t.Fatalf("the team's reset changed alice's README.md to %q", got)
	}
	if got, want := r.say(t, "d3", room, "carol", "/diff"), "No changes in `api` on `"+projects.Branch(room.Key())+"` against the project's ref."; got != want {
		t.Fatalf("/diff after the reset = %q, want %q", got, want)
	}

	// /project lists, refuses, switches.
	for i, c := range []struct{ text, want string }{
		{"/project", "**Projects** (▶ this conversation's)\n- ▶ `api`\n- `web`\n\nSwitch with `/project <name>`: the next message starts a fresh session there."},
		{"/project ops", "You may not use project `ops` here: it is bound to other chats and users. An admin can add this chat or you to projects.ops."},
		{"/project nope", "There is no project `nope`. Projects here: `api`, `web`."},
		{"/project web", "OK — this conversation now works in `web`. The next message starts a fresh session there."},
		{"/diff", "Project `web` is a shared checkout (a path), not a git project: this conversation has no changes of its own there."},
		{"/project", "**Projects** (▶ this conversation's)\n- `api`\n- ▶ `web`\n\nSwitch with `/project <name>`: the next message starts a fresh session there."},
	} {
		if got := r.say(t, fmt.Sprintf("p%d", i), dm, "alice", c.text); got != c.want {
			t.Errorf("%s answered\n%q\nwant\n%q", c.text, got, c.want)
		}
	}
	if n := len(r.h.Server.ModelRequests()); n != requests {
		t.Fatalf("the model saw %d requests after the commands, want %d: a command reached it", n, requests)
	}
	before, _, err := r.st.Conversation(t.Context(), dm.Key())
	if err != nil || before != "" {
		t.Fatalf("after /project web the session is %q (%v), want none", before, err)
	}
	r.turn(t, "m4", dm, "alice", "where now")
	sid, cwd, err := r.st.Conversation(t.Context(), dm.Key())
	web, _ := filepath.Abs(r.webDir)
	if err != nil || sid == "" || cwd != web {
		t.Fatalf("after the switch alice's session %q works in %q (%v), want a fresh one in %s", sid, cwd, err, web)
	}
	reqs := r.h.Server.ModelRequests()
	if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), "<cwd>"+web+"</cwd>") || strings.Contains(string(last.Body), "alice line") {
		t.Fatalf("the model's request after the switch does not come from %s in a fresh session:\n%s", web, last.Body)
	}
	if _, err := os.Stat(filepath.Join(web, ".git")); !os.IsNotExist(err) {
		t.Errorf("the path project got a .git: %v", err)
	}
}

// /help lists the project commands where projects are configured.
func TestHelpListsProjectCommands(t *testing.T) {
	r := newProjectRig(t, sm.Sequence())
	got := r.say(t, "h1", chattest.DM("alice"), "alice", "/help")
	for _, want := range []string{"- `/project` — the projects open here", "- `/diff` — ", "- `/reset` — ", "- `/help` — this list"} {
		if !strings.Contains(got, want) {
			t.Errorf("/help lacks %q:\n%s", want, got)
		}
	}
}

// firstPrompt is the user text of the first model request whose prompt
// holds text.
func firstPrompt(t *testing.T, reqs []sm.Request, text string) string {
	t.Helper()
	for _, r := range reqs {
		if strings.Contains(r.UserText, text) {
			return r.UserText
		}
	}
	t.Fatalf("no model request holds %q", text)
	return ""
}

// In a group whose project is per_user, each member has a session and a
// worktree of their own, and the prompt names nobody (nobody else speaks
// in that session).
func TestPerUserGroupSessions(t *testing.T) {
	r := newProjectRig(t, sm.ByPrompt(map[string][]sm.Response{
		"bob writes":  writes("c1", "bob line"),
		"dave writes": writes("c2", "dave line"),
	}))
	crew := chattest.Room("crew")
	bob, dave := crew, crew
	bob.Member, dave.Member = "bob", "dave"
	r.say(t, "m1", crew, "bob", "bob writes")
	r.say(t, "m2", crew, "dave", "dave writes")
	for _, c := range []bot.Conversation{bob, dave} {
		r.chat.WaitFor(t, c, "finish")
	}
	sb, cb, err1 := r.st.Conversation(t.Context(), "room/bob:crew")
	sd, cd, err2 := r.st.Conversation(t.Context(), "room/dave:crew")
	if err1 != nil || err2 != nil || sb == "" || sd == "" || sb == sd || cb == cd {
		t.Fatalf("bob: %q in %q (%v); dave: %q in %q (%v); want two sessions in two directories", sb, cb, err1, sd, cd, err2)
	}
	for c, line := range map[bot.Conversation]string{bob: "bob line", dave: "dave line"} {
		w := r.workspace(t, "shop", c)
		if got := readFile(t, filepath.Join(w.Dir, "README.md")); got != "hello\n"+line+"\n" {
			t.Errorf("%s's worktree README.md = %q", c.Member, got)
		}
		if w.Branch != projects.Branch(c.Key()) {
			t.Errorf("%s works on %s", c.Member, w.Branch)
		}
	}
	if s, _, _ := r.st.Conversation(t.Context(), crew.Key()); s != "" {
		t.Errorf("the group's shared conversation got session %q, want none", s)
	}
	for _, req := range r.h.Server.ModelRequests() {
		if strings.HasPrefix(req.UserText, "From:") {
			t.Errorf("a per-user session's prompt names its sender: %q", req.UserText)
		}
	}
}
