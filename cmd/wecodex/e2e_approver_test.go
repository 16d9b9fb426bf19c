package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// sayDirect sends text to the bot in from's own 1:1 chat and returns the
// reply's text.
func sayDirect(t *testing.T, ctx context.Context, sim *wecomtest.Sim, from, text string) string {
	t.Helper()
	s, err := sim.Send(ctx, wecomtest.Message{From: from, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if !s.First.Finish {
		t.Fatalf("%s from %s: reply %+v is not finished", text, from, s.First)
	}
	return s.First.Content
}

// With the default approvers (the admins), the requester decides nothing: a
// command inside the sandbox runs unasked, the escalation waits for an
// admin, who finds it with /pending in their own 1:1 chat and approves it
// there by its id; it runs once, in the requester's workspace.
func TestE2EApproverDecidesFromTheirOwnChat(t *testing.T) {
	e := newE2EIn(t, sm.Sequence(
		sm.Reply(sm.ExecCommand("call_0", "echo inside >> inside.txt")),
		sm.Reply(sm.EscalatedExecCommand("call_1", approvalCmd, "writes outside the sandbox")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "All done.")),
	), "workspace-write")
	e.approval = "approval: ask"
	e.access = "allow_users: [alice, bob]\n  admins: [carol]"
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)

	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", ChatID: approvalChat, Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	short := cut(e.what(), 100)
	waitUntilShown(t, ctx, b.sim, s.ID, "⏸ Waiting for approval: #1 "+short+
		" — an admin decides with /approve 1 or /deny 1, from any chat with the bot")
	inside, err := os.ReadFile(filepath.Join(e.cwd(), "inside.txt"))
	if err != nil || string(inside) != "inside\n" {
		t.Fatalf("the sandboxed command's file: %q, %v; want it run once, unasked", inside, err)
	}

	for _, c := range []struct{ from, text, want string }{
		{"alice", "/approve", "Only an admin may decide #1."},
		{"alice", "/approve 1", "Only an admin may decide #1."},
		{"alice", "/approve always", "Only an admin may decide #1."},
		{"bob", "/deny 1", "Only an admin may decide #1."},
	} {
		if got := say(t, ctx, b.sim, c.from, c.text); got != c.want {
			t.Fatalf("%s's %s: %q, want %q", c.from, c.text, got, c.want)
		}
	}
	if n := e.marks(t); n != 0 {
		t.Fatalf("the command ran %d times after the requester's /approve", n)
	}
	if got, want := sayDirect(t, ctx, b.sim, "alice", "/pending"), "Nothing is waiting for your decision."; got != want {
		t.Fatalf("the requester's /pending: %q, want %q", got, want)
	}
	if got, want := sayDirect(t, ctx, b.sim, "carol", "/pending"),
		"Waiting for your decision:\n#1 from alice in group:"+approvalChat+": "+short+" — /approve 1 or /deny 1"; got != want {
		t.Fatalf("the admin's /pending:\n%q\nwant\n%q", got, want)
	}
	if got, want := sayDirect(t, ctx, b.sim, "carol", "/approve 1"), "OK — #1 approved by carol: "+short; got != want {
		t.Fatalf("the admin's /approve 1 in her own chat: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\n✅ /bin/bash -c 'echo inside >> inside.txt'\n\n✅ /bin/bash -c '" + approvalCmd + "'\n\n" +
		"ℹ️ Approval #1 asked of an admin: " + e.what() + " — writes outside the sandbox\n\n" +
		"ℹ️ #1 approved by carol: " + short + "\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 1 {
		t.Fatalf("the approved command ran %d times in the requester's workspace, want 1", n)
	}
	if got, want := sayDirect(t, ctx, b.sim, "carol", "/pending"), "Nothing is waiting for your decision."; got != want {
		t.Fatalf("/pending once decided: %q, want %q", got, want)
	}
	if got, want := sayDirect(t, ctx, b.sim, "carol", "/approve 1"), "#1 was already decided: approved by carol."; got != want {
		t.Fatalf("a repeated /approve 1: %q, want %q", got, want)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"approve carol alice #1 " + short})
	// The commands never reach Codex: one turn, three model requests, its
	// prompt alone.
	reqs := e.h.Server.ModelRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	for _, r := range reqs {
		if strings.Contains(r.UserText, "/approve") || strings.Contains(r.UserText, "/pending") {
			t.Fatalf("a command reached the model: %q", r.UserText)
		}
	}
}
