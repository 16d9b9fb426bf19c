package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/schedule"
)

// A signed POST to a trigger on the long connection starts one turn whose
// model request holds the body, and its card reaches the group through
// aibot_send_msg, the progress quoted above the answer; a replay of the
// request and a bad signature get 401 and start nothing.
func TestE2ELongConnTriggerPushesItsCard(t *testing.T) {
	e, srv := newLongConnE2E(t, sm.Sequence(sm.Reply(
		sm.Message(sm.PhaseCommentary, "Reading the log."),
		sm.Message(sm.PhaseFinalAnswer, "TestX failed: the fixture is missing."),
	)))
	secretFile := filepath.Join(t.TempDir(), "hook")
	secret := []byte("e2e-hook-secret")
	if err := os.WriteFile(secretFile, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	e.extra = `
triggers:
  ci:
    secret_file: ` + secretFile + `
    conversation: group:wrkChat
    prompt: CI failed. Explain the log.
`
	ctx := within(t, 3*time.Minute)
	a := e.serve(t, "5m30s")
	subscribedBy(t, ctx, srv, a)
	greetGroup(t, ctx, srv, "wrkChat")

	body := []byte(`{"job":"unit","log":"--- FAIL: TestX"}`)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	sig := schedule.Sign(secret, ts, body)
	hook := func(sig string) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/hooks/ci", bytes.NewReader(body))
		req.Header.Set(schedule.HeaderTimestamp, ts)
		req.Header.Set(schedule.HeaderSignature, sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := hook(sig); code != http.StatusAccepted {
		t.Fatalf("signed POST: %d, want 202", code)
	}
	sent := waitRecord(t, ctx, srv, 0, "the pushed card", func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_send_msg" && strings.Contains(r.Markdown(), "TestX failed")
	})
	prompt := "CI failed. Explain the log.\n\n```\n" + string(body) + "\n```"
	title := strings.Join(strings.Fields(prompt), " ")
	if len(title) > 200 {
		title = title[:200] + "…"
	}
	// A trigger without a mode runs read-only, and its card says so.
	want := "**⏰ " + title + "**\n\n> Reading the log.\n\n---\n\n🔒 Mode: read-only — the agent may look, not change\n\nTestX failed: the fixture is missing."
	if got := sent.Markdown(); got != want || sent.Errcode != 0 {
		t.Fatalf("pushed markdown (errcode %d):\n%q\nwant\n%q", sent.Errcode, got, want)
	}
	// A group's prompt names its sender: the trigger.
	if got := userTexts(e.h.Server.ModelRequests()); len(got) != 1 || got[0] != "From: wecodex-trigger-ci\n\n"+prompt {
		t.Fatalf("model prompts %q, want one: %q", got, prompt)
	}
	if code := hook(sig); code != http.StatusUnauthorized {
		t.Fatalf("replayed POST: %d, want 401", code)
	}
	if code := hook(schedule.Sign([]byte("wrong"), ts, body)); code != http.StatusUnauthorized {
		t.Fatalf("badly signed POST: %d, want 401", code)
	}
	code, metricsText := get(t, a.base+"/metrics")
	for _, line := range []string{
		`wecodex_trigger_requests_total{name="ci",result="started"} 1`,
		`wecodex_trigger_requests_total{name="ci",result="replayed"} 1`,
		`wecodex_trigger_requests_total{name="ci",result="unsigned"} 1`,
	} {
		if code != 200 || !strings.Contains(metricsText, line+"\n") {
			t.Errorf("/metrics (%d) lacks %s", code, line)
		}
	}
	if n := len(srv.Requests("aibot_send_msg")); n != 1 {
		t.Fatalf("%d aibot_send_msg, want 1", n)
	}
}

// /schedule from a group on the long connection: a non-approver's add is
// refused; an approver's is listed with its next run and fires, and each
// slot's card reaches the group through aibot_send_msg as one markdown
// message, the progress quoted above a rule and the answer apart below
// it; /schedule pause stops its slots and resume starts them again;
// /schedule rm removes it.
func TestE2ELongConnChatSchedulePushesItsCard(t *testing.T) {
	e, srv := newLongConnE2E(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(
			sm.Message(sm.PhaseCommentary, "Running the tests."),
			sm.Message(sm.PhaseFinalAnswer, "All tests pass."),
		), nil
	}))
	e.access = "allow_users: [alice, bob, carol]\n  approvers: [alice]"
	ctx := within(t, 3*time.Minute)
	a := e.serve(t, "5m30s")
	subscribedBy(t, ctx, srv, a)
	say := func(user, text string) string {
		t.Helper()
		reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: user, ChatID: "wrkChat", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return waitRecord(t, ctx, srv, 0, "the answer to "+text, func(r wecomtest.Record) bool {
			return r.Kind == wecomtest.KindRequest && r.ReqID == reqID && r.Stream().Finish
		}).Stream().Content
	}
	add := `/schedule add "@every 2s" Run the tests.`
	if got, want := say("bob", add), "In a group only an approver may add or change schedules; ask one of them."; got != want {
		t.Fatalf("bob's add: %q, want %q", got, want)
	}
	if got, want := say("alice", add), "OK — schedule `chat-1` (`@every 2s`), next run "; !strings.HasPrefix(got, want) {
		t.Fatalf("alice's add: %q, want it to start %q", got, want)
	}
	sent := waitRecord(t, ctx, srv, 0, "the pushed card", func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == "aibot_send_msg"
	})
	if want := "**⏰ Run the tests.**\n\n> Running the tests.\n\n---\n\n" + readOnlyHeader + "All tests pass."; sent.Markdown() != want || sent.Errcode != 0 {
		t.Fatalf("pushed markdown (errcode %d):\n%q\nwant\n%q", sent.Errcode, sent.Markdown(), want)
	}
	// Anyone in the group lists it, with its next run.
	listed := regexp.MustCompile("^\\*\\*Schedules\\*\\*\n- `chat-1` `@every 2s` — next: \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d \\S+ — Run the tests\\.$")
	if got := say("bob", "/schedule list"); !listed.MatchString(got) {
		t.Fatalf("list: %q, want it to match %s", got, listed)
	}
	if got, want := say("alice", "/schedule pause chat-1"), "OK — schedule `chat-1`: paused."; got != want {
		t.Fatalf("pause: %q, want %q", got, want)
	}
	// Two slots pass while it is paused; neither fires.
	paused := time.Now()
	waitUntil(t, ctx, paused.Add(4500*time.Millisecond))
	for slot := range firedSlotsOf("chat-1", a) {
		if slot > paused.Unix() {
			t.Errorf("slot %d fired after the pause at %s", slot, paused.Format(time.TimeOnly))
		}
	}
	if got, want := say("alice", "/schedule resume chat-1"), "OK — schedule `chat-1`: resumed."; got != want {
		t.Fatalf("resume: %q, want %q", got, want)
	}
	resumed := time.Now().Unix()
	waitFiredOf(t, ctx, []*botProc{a}, "chat-1", func(slot int64, _ string) bool { return slot > resumed })
	if got, want := say("alice", "/schedule rm chat-1"), "OK — schedule `chat-1`: removed."; got != want {
		t.Fatalf("rm: %q, want %q", got, want)
	}
	// The slots fired ran as their maker, each once.
	for slot, outcomes := range firedSlotsOf("chat-1", a) {
		if len(outcomes) != 1 {
			t.Errorf("slot %d fired %v", slot, outcomes)
		}
	}
	if got := userTexts(e.h.Server.ModelRequests()); len(got) == 0 || got[0] != "From: alice\n\nRun the tests." {
		t.Fatalf("model prompts %q, want the first From: alice", got)
	}
}

// On the AI bot's webhook, /schedule add is refused with the reason: the
// webhook cannot push, so nothing would ever reach the chat.
func TestE2EWebhookScheduleAddRefused(t *testing.T) {
	e := newE2E(t, sm.Sequence())
	e.access = "allow_users: [alice, bob, carol]\n  approvers: [alice]"
	ctx := within(t, time.Minute)
	b := e.serve(t, "5m30s")
	for _, m := range []wecomtest.Message{
		{From: "alice", Text: `/schedule add "@every 10m" Run the tests.`},
		{From: "alice", ChatID: "wrkChat", Text: `/schedule add "@every 10m" Run the tests.`},
	} {
		s, err := b.sim.Send(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Not scheduled: " + errWebhookCannotPush.Error(); !s.First.Finish || s.First.Content != want {
			t.Fatalf("%+v: first frame %+v, want it finished with %q", m, s.First, want)
		}
	}
	if n := len(e.h.Server.ModelRequests()); n != 0 {
		t.Fatalf("%d model requests, want none", n)
	}
}
