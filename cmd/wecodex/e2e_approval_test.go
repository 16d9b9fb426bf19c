package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Approvals end to end: the real Codex asks before a command that needs to
// leave the sandbox (sandbox_permissions: require_escalated, approval policy
// on-request), and the card waits until the person who asked decides.
// Everything happens in one group chat so several people can answer the same
// request.

const (
	approvalChat = "team"
	// approvalCmd leaves its mark in the conversation's workspace, so a test
	// sees whether it ran.
	approvalCmd = "echo ran >> approved.txt"
)

func approvalScript(calls ...string) sm.Script {
	var replies []sm.Response
	for _, id := range calls {
		replies = append(replies, sm.Reply(sm.EscalatedExecCommand(id, approvalCmd, "writes outside the sandbox")))
	}
	return sm.Sequence(append(replies, sm.Reply(sm.Message(sm.PhaseFinalAnswer, "All done.")))...)
}

// newApprovalE2E is an e2e setup with agent.approval: ask; alice and bob may
// use the bot, carol is an admin.
func newApprovalE2E(t *testing.T, script sm.Script, extra string) *e2e {
	e := newE2EIn(t, script, "workspace-write")
	e.approval = "approval: ask" + extra
	e.access = "allow_users: [alice, bob]\n  admins: [carol]"
	return e
}

// marks is how many times approvalCmd ran in the chat's workspace.
func (e *e2e) marks(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(bot.WorkspaceDir(e.workspace, "group:"+approvalChat), "approved.txt"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "ran\n")
}

func (e *e2e) cwd() string { return bot.WorkspaceDir(e.workspace, "group:"+approvalChat) }

// waitingText is the card's status line while request id waits.
func (e *e2e) waitingText(id string) string {
	return "⏸ Waiting for approval: #" + id + " " + cut(e.what(), 100) +
		" — reply /approve, /approve always or /deny (#" + id + ")"
}

// what is the request as the card and the log describe it.
func (e *e2e) what() string { return "`/bin/bash -c '" + approvalCmd + "'` in " + e.cwd() }

// cut is what the status line keeps of a long text: n runes, … last.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// say sends text to the group chat as from and returns the reply's text.
func say(t *testing.T, ctx context.Context, sim *wecomtest.Sim, from, text string) string {
	t.Helper()
	s, err := sim.Send(ctx, wecomtest.Message{From: from, ChatID: approvalChat, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if !s.First.Finish {
		t.Fatalf("%s from %s: reply %+v is not finished", text, from, s.First)
	}
	return s.First.Content
}

// askAndWait sends the task and waits until its card waits for approval.
func askAndWait(t *testing.T, ctx context.Context, e *e2e, sim *wecomtest.Sim) *wecomtest.Stream {
	t.Helper()
	s, err := sim.Send(ctx, wecomtest.Message{From: "alice", ChatID: approvalChat, Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	waitUntilShown(t, ctx, sim, s.ID, e.waitingText("1"))
	return s
}

// waitUntilShown refreshes a stream until its frame contains text, and fails
// at once if the stream finishes without it.
func waitUntilShown(t *testing.T, ctx context.Context, sim *wecomtest.Sim, streamID, text string) {
	t.Helper()
	var last wecomtest.Frame
	for {
		f, err := sim.Refresh(ctx, streamID)
		if err != nil {
			t.Fatalf("waiting for %q on stream %s: %v; last frame:\n%s", text, streamID, err, last.Content)
		}
		last = f
		if strings.Contains(f.Content, text) {
			return
		}
		if f.Finish {
			t.Fatalf("stream %s finished without showing %q:\n%s", streamID, text, f.Content)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("stream %s never showed %q; last frame:\n%s", streamID, text, f.Content)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// decisions are the "approval decided" log lines, as "verdict by requester
// #id what".
func decisions(b *botProc) []string {
	b.logs.mu.Lock()
	defer b.logs.mu.Unlock()
	var out []string
	for _, r := range b.logs.lines {
		if r["msg"] == "approval decided" {
			out = append(out, fmt.Sprintf("%v %v %v #%v %v", r["verdict"], r["by"], r["requester"], r["approval"], r["what"]))
		}
	}
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The requester's /approve runs the command; another allowed user's /approve
// before it is refused with who may decide, and runs nothing.
func TestE2EApprovalByRequester(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1"), "")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s := askAndWait(t, ctx, e, b.sim)

	if got, want := say(t, ctx, b.sim, "bob", "/approve"), "Only alice (who asked) or an admin may decide #1."; got != want {
		t.Fatalf("bob's /approve: %q, want %q", got, want)
	}
	if n := e.marks(t); n != 0 {
		t.Fatalf("the command ran %d times after bob's refused /approve", n)
	}
	what, short := e.what(), cut(e.what(), 100)
	if got, want := say(t, ctx, b.sim, "alice", "/approve"), "OK — #1 approved by alice: "+short; got != want {
		t.Fatalf("alice's /approve: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\n✅ /bin/bash -c '" + approvalCmd + "'\n\nℹ️ Approval #1 asked of alice (or an admin): " + what + " — writes outside the sandbox\n\n" +
		"ℹ️ #1 approved by alice: " + short + "\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 1 {
		t.Fatalf("the approved command ran %d times, want 1", n)
	}
	if got, want := say(t, ctx, b.sim, "alice", "/approve 1"), "#1 was already decided: approved by alice."; got != want {
		t.Fatalf("a repeated /approve 1: %q, want %q", got, want)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"approve alice alice #1 " + short})
}
