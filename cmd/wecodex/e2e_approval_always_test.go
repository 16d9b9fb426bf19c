package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// /approve always grants the command's prefix (the program and its plain
// subcommand words: here `touch`) in that conversation only: a later
// `touch` there runs unasked, with a card line naming the grant; one that
// adds shell syntax (`&&`) is asked again; and the same command in another
// conversation is still asked. The grant lives in Redis, so it does not
// depend on the Codex process that heard it.
func TestE2EApprovalAlwaysCoversItsPrefixInItsConversation(t *testing.T) {
	e := newE2EIn(t, sm.ByPrompt(map[string][]sm.Response{
		"work in team": {
			sm.Reply(sm.EscalatedExecCommand("call_1", "touch one.txt", "writes outside the sandbox")),
			sm.Reply(sm.EscalatedExecCommand("call_2", "touch two.txt", "writes outside the sandbox")),
			sm.Reply(sm.EscalatedExecCommand("call_3", "touch three.txt && touch four.txt", "writes outside the sandbox")),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Team done.")),
		},
		"work in other": {
			sm.Reply(sm.EscalatedExecCommand("call_4", "touch five.txt", "writes outside the sandbox")),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Other done.")),
		},
	}), "workspace-write")
	e.approval = "approval: ask"
	e.access = "allow_users: [alice, bob]\n  admins: [carol]"
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	team, other := e.cwd(), bot.WorkspaceDir(e.workspace, "group:other")
	what := func(cmd, cwd string) string { return "`/bin/bash -c '" + cmd + "'` in " + cwd }
	waiting := func(id, w string) string {
		return "⏸ Waiting for approval: #" + id + " " + cut(w, 100) + " — an admin decides with /approve " + id + " or /deny " + id + ", from any chat with the bot"
	}

	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", ChatID: approvalChat, Text: "work in team"})
	if err != nil {
		t.Fatal(err)
	}
	one := what("touch one.txt", team)
	waitUntilShown(t, ctx, b.sim, s.ID, waiting("1", one))
	scope := " — every `touch …` command now runs unasked in this conversation, until its session ends (/new)"
	if got, want := say(t, ctx, b.sim, "carol", "/approve always"), "OK — #1 approved always by carol: "+cut(one, 100)+scope; got != want {
		t.Fatalf("the admin's /approve always:\n%q\nwant\n%q", got, want)
	}
	three := what("touch three.txt && touch four.txt", team)
	waitUntilShown(t, ctx, b.sim, s.ID, waiting("2", three))
	if got, want := say(t, ctx, b.sim, "carol", "/deny 2"), "OK — #2 declined by carol: "+cut(three, 100); got != want {
		t.Fatalf("/deny 2: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	two := what("touch two.txt", team)
	want := "<think>\n✅ /bin/bash -c 'touch one.txt'\n\n" +
		"ℹ️ Approval #1 asked of an admin: " + one + " — writes outside the sandbox\n\n" +
		"ℹ️ #1 approved always by carol: " + cut(one, 100) + scope + "\n\n" +
		"✅ /bin/bash -c 'touch two.txt'\n\n" +
		"ℹ️ Approved unasked: " + cut(two, 100) + " — #1's /approve always by carol covers every `touch …` command here\n\n" +
		"❌ /bin/bash -c 'touch three.txt && touch four.txt' (failed)\n\n" +
		"ℹ️ Approval #2 asked of an admin: " + three + " — writes outside the sandbox\n\n" +
		"⚠️ #2 declined by carol: " + cut(three, 100) + "\n</think>\n\nTeam done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}

	// Another conversation: the grant is not its own, so it is asked.
	s2, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", ChatID: "other", Text: "work in other"})
	if err != nil {
		t.Fatal(err)
	}
	five := what("touch five.txt", other)
	waitUntilShown(t, ctx, b.sim, s2.ID, waiting("3", five))
	if got, want := say(t, ctx, b.sim, "carol", "/deny 3"), "OK — #3 declined by carol: "+cut(five, 100); got != want {
		t.Fatalf("/deny 3: %q, want %q", got, want)
	}
	if last, _ := follow(t, ctx, b.sim, s2.ID); !last.Finish {
		t.Fatalf("the other conversation's card did not finish: %s", last.Content)
	}
	for _, f := range []struct {
		path string
		ran  bool
	}{
		{filepath.Join(team, "one.txt"), true}, {filepath.Join(team, "two.txt"), true},
		{filepath.Join(team, "three.txt"), false}, {filepath.Join(team, "four.txt"), false},
		{filepath.Join(other, "five.txt"), false},
	} {
		if _, err := os.Stat(f.path); (err == nil) != f.ran {
			t.Errorf("%s exists: %v, want %v", f.path, err == nil, f.ran)
		}
	}
	equalStrings(t, "decision log lines", decisions(b), []string{
		"always carol alice #1 " + cut(one, 100), "deny carol alice #2 " + cut(three, 100), "deny carol alice #3 " + cut(five, 100)})
	if got := logged(b, "approval granted by an earlier /approve always"); len(got) != 1 || got[0]["approval"] != float64(1) || got[0]["by"] != "carol" {
		t.Fatalf("grant log lines: %v, want one, naming #1 and carol", got)
	}
}
