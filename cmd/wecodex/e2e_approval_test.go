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
// on-request), and the card waits until someone who may decide does. Most
// tests here let the person who asked decide too (access.approvers:
// [requester]); e2e_approver_test.go has the default, the admins alone.
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
// use the bot, carol is an admin, and the requester decides too.
func newApprovalE2E(t *testing.T, script sm.Script, extra string) *e2e {
	e := newE2EIn(t, script, "workspace-write")
	e.approval = "approval: ask" + extra
	e.access = "allow_users: [alice, bob]\n  admins: [carol]\n  approvers: [requester]"
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
	if got := scrape(t, ctx, b.base+"/metrics")[`wecodex_approvals_total{decision="approve"}`]; got != 1 {
		t.Fatalf("wecodex_approvals_total{decision=\"approve\"} = %v, want 1", got)
	}
}

// askedLine is the progress line that says what request id asks.
func (e *e2e) askedLine(id string) string {
	return "ℹ️ Approval #" + id + " asked of alice (or an admin): " + e.what() + " — writes outside the sandbox"
}

// /deny: the command does not run and the card says it was declined.
func TestE2EApprovalDenied(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1"), "")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s := askAndWait(t, ctx, e, b.sim)

	short := cut(e.what(), 100)
	if got, want := say(t, ctx, b.sim, "alice", "/deny 1"), "OK — #1 declined by alice: "+short; got != want {
		t.Fatalf("/deny 1: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\n❌ /bin/bash -c '" + approvalCmd + "' (failed)\n\n" + e.askedLine("1") + "\n\n" +
		"⚠️ #1 declined by alice: " + short + "\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 0 {
		t.Fatalf("the declined command ran %d times", n)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"deny alice alice #1 " + short})
}

// Two replicas: the decision of an admin (not the requester) reaches the
// replica that runs the turn from the other one, and the command runs.
func TestE2EApprovalByAdminOnAnotherReplica(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1"), "")
	a := e.serve(t, "5m30s")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s := askAndWait(t, ctx, e, a.sim)

	runner, other := a, b
	if len(logged(b, "turn started")) == 1 {
		runner, other = b, a
	}
	if len(logged(runner, "turn started")) != 1 || len(logged(other, "turn started")) != 0 {
		t.Fatalf("turn started on a %d times and on b %d times, want once on one of them",
			len(logged(a, "turn started")), len(logged(b, "turn started")))
	}
	short := cut(e.what(), 100)
	if got, want := say(t, ctx, other.sim, "carol", "/approve"), "OK — #1 approved by carol: "+short; got != want {
		t.Fatalf("carol's /approve on the other replica: %q, want %q", got, want)
	}
	a.sim.Adopt(s)
	b.sim.Adopt(s)
	last, seen := follow(t, ctx, other.sim, s.ID)
	want := "<think>\n✅ /bin/bash -c '" + approvalCmd + "'\n\n" + e.askedLine("1") + "\n\n" +
		"ℹ️ #1 approved by carol: " + short + "\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 1 {
		t.Fatalf("the approved command ran %d times, want 1", n)
	}
	equalStrings(t, "decision log lines of the turn's replica", decisions(runner), []string{"approve carol alice #1 " + short})
}

// logged returns the log lines with message msg.
func logged(b *botProc, msg string) []map[string]any {
	b.logs.mu.Lock()
	defer b.logs.mu.Unlock()
	var out []map[string]any
	for _, r := range b.logs.lines {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// No one decides within agent.approval_timeout: the request is declined by
// itself and the card says it timed out.
func TestE2EApprovalTimesOut(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1"), "\n  approval_timeout: 1s")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "alice", ChatID: approvalChat, Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	short := cut(e.what(), 100)
	want := "<think>\n❌ /bin/bash -c '" + approvalCmd + "' (failed)\n\n" + e.askedLine("1") + "\n\n" +
		"⚠️ #1 timed out after 1s (agent.approval_timeout) and was declined: " + short + "\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 0 {
		t.Fatalf("the timed-out command ran %d times", n)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"timeout  alice #1 " + short})
	if got, want := say(t, ctx, b.sim, "alice", "/approve 1"), "#1 was already decided: declined: no one decided in time."; got != want {
		t.Fatalf("a late /approve 1: %q, want %q", got, want)
	}
}

// /stop while the card waits: the request is answered cancelled, nothing
// runs, and the card says so.
func TestE2EApprovalStopWhileWaiting(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1"), "")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s := askAndWait(t, ctx, e, b.sim)

	if got, want := say(t, ctx, b.sim, "alice", "/stop"), "OK — asked the running turn to stop."; got != want {
		t.Fatalf("/stop: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	short := cut(e.what(), 100)
	want := "<think>\n🔄 /bin/bash -c '" + approvalCmd + "'\n\n" + e.askedLine("1") + "\n\n" +
		"⚠️ #1 cancelled: the turn ended first: " + short + "\n\nℹ️ Stopped with /stop.\n</think>\n\n⏹ Cancelled"
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 0 {
		t.Fatalf("the command of a stopped turn ran %d times", n)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"cancelled  alice #1 " + short})
	if got, want := say(t, ctx, b.sim, "alice", "/approve"), "Nothing is waiting for approval in this conversation."; got != want {
		t.Fatalf("/approve after the turn ended: %q, want %q", got, want)
	}
}

// /approve always of a command with no prefix that can be granted (it
// redirects) grants that exact command: asked again in the conversation's
// session it runs without a second request, and the card says which grant
// let it. It is an approver's alone: the requester, who may approve once,
// cannot grant it. e2e_approval_always_test.go has the prefix.
func TestE2EApprovalAlwaysForTheSession(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1", "call_2"), "")
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s := askAndWait(t, ctx, e, b.sim)

	short := cut(e.what(), 100)
	if got, want := say(t, ctx, b.sim, "alice", "/approve always"), "Only an admin may approve #1 always; /approve 1 approves it once."; got != want {
		t.Fatalf("the requester's /approve always: %q, want %q", got, want)
	}
	if n := e.marks(t); n != 0 {
		t.Fatalf("the command ran %d times after the requester's refused /approve always", n)
	}
	scope := " — `/bin/bash -c '" + approvalCmd + "'` again now runs unasked in this conversation, until its session ends (/new)"
	if got, want := say(t, ctx, b.sim, "carol", "/approve always"), "OK — #1 approved always by carol: "+short+scope; got != want {
		t.Fatalf("the admin's /approve always: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\n✅ /bin/bash -c '" + approvalCmd + "'\n\n" + e.askedLine("1") + "\n\n" +
		"ℹ️ #1 approved always by carol: " + short + scope + "\n\n" +
		"✅ /bin/bash -c '" + approvalCmd + "'\n\n" +
		"ℹ️ Approved unasked: " + short + " — #1's /approve always by carol covers `/bin/bash -c '" + approvalCmd + "'` again here" +
		"\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 2 {
		t.Fatalf("the command ran %d times, want 2 (asked once)", n)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"always carol alice #1 " + short})
}

// `wecodex codex-acp` passes Codex's request to its ACP client (here the bot,
// with agent.kind acp) as session/request_permission with allow-once,
// allow-always and reject options, and the client's answer decides: a /deny
// keeps the command from running, then /approve of the next lets it run.
func TestE2EApprovalThroughCodexACP(t *testing.T) {
	e := newApprovalE2E(t, approvalScript("call_1", "call_2"), "")
	e.acp = true
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	s := askAndWait(t, ctx, e, b.sim)

	short := cut(e.what(), 100)
	if got, want := say(t, ctx, b.sim, "alice", "/deny"), "OK — #1 declined by alice: "+short; got != want {
		t.Fatalf("/deny: %q, want %q", got, want)
	}
	waitUntilShown(t, ctx, b.sim, s.ID, e.waitingText("2"))
	if n := e.marks(t); n != 0 {
		t.Fatalf("the declined command ran %d times", n)
	}
	if got, want := say(t, ctx, b.sim, "alice", "/approve 2"), "OK — #2 approved by alice: "+short; got != want {
		t.Fatalf("/approve 2: %q, want %q", got, want)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\n❌ /bin/bash -c '" + approvalCmd + "' (failed)\n\n" + e.askedLine("1") + "\n\n" +
		// Each decision reads once, with who decided: the ACP client side
		// (acpbridge/external) adds no line of its own.
		"⚠️ #1 declined by alice: " + short + "\n\n" +
		"✅ /bin/bash -c '" + approvalCmd + "'\n\n" + e.askedLine("2") + "\n\n" +
		"ℹ️ #2 approved by alice: " + short + "\n</think>\n\nAll done."
	if last.Content != want {
		t.Fatalf("final frame:\n%s\nwant:\n%s\nframes seen: %q", last.Content, want, seen)
	}
	if n := e.marks(t); n != 1 {
		t.Fatalf("the command ran %d times, want 1 (the approved one)", n)
	}
	equalStrings(t, "decision log lines", decisions(b), []string{"deny alice alice #1 " + short, "approve alice alice #2 " + short})
}
