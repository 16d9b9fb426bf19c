package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/audit"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// An @every 2s schedule on two replicas of the self-built app, in real
// time: each slot fires on one replica only, and its turn's answer reaches
// the user with message/send. How many slots fire in the time the test
// takes depends on the machine's speed, so only "at least three, none
// twice" is asserted; the exact count per slot is pinned with a driven
// clock in schedule/scheduler_test.go.
// readOnlyHeader leads the answer of a schedule's card: a schedule without
// a mode runs read-only, and its card says so.
const readOnlyHeader = "🔒 Mode: read-only — the agent may look, not change\n\n"

func TestE2EAppScheduleRunsEachSlotOnce(t *testing.T) {
	e := newE2E(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "All tests pass.")), nil
	}))
	api := wecomtest.NewAppAPI(wecomtest.AppAPIOptions{CorpID: e2eCorp, Secret: e2eAppSecret, AgentID: e2eAgent})
	t.Cleanup(api.Close)
	trail := filepath.Join(t.TempDir(), "audit.jsonl")
	e.extra = "\nschedules:\n  tests:\n    cron: \"@every 2s\"\n    conversation: app:alice\n    prompt: Run the tests.\n" +
		"audit:\n  file: " + trail + "\n"
	cfg := appConfig(t, e, api)
	ctx := within(t, 3*time.Minute)
	a := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	answered := func(n int) func(wecomtest.AppRecord) bool {
		return func(wecomtest.AppRecord) bool {
			count := 0
			for _, d := range api.Delivered("alice", "") {
				if d.MsgType == "markdown" && d.Content == readOnlyHeader+"All tests pass." {
					count++
				}
			}
			return count >= n
		}
	}
	if _, err := api.Wait(ctx, answered(3)); err != nil {
		t.Fatalf("three scheduled answers: %v; delivered %+v", err, api.Delivered("alice", ""))
	}
	_, body := get(t, a.base+"/readyz")
	var ready readyzBody
	if err := json.Unmarshal([]byte(body), &ready); err != nil || len(ready.Schedules) != 1 || ready.Schedules[0].ID != "tests" {
		t.Fatalf("/readyz schedules: %s (%v)", body, err)
	}
	a.stop()
	b.stop()
	slots := map[any]int{}
	for _, p := range []*botProc{a, b} {
		for _, l := range p.logs.withMsg("schedule fired", map[string]any{"schedule": "tests"}) {
			slots[l["slot"]]++
		}
	}
	if len(slots) < 3 {
		t.Fatalf("%d slots fired, want at least 3", len(slots))
	}
	for slot, n := range slots {
		if n != 1 {
			t.Errorf("slot %v fired %d times", slot, n)
		}
	}
	// Each fire is one audit record (both replicas append to the one
	// file): kind schedule, its slot, its outcome and its turn's msgid.
	fired := map[string]bool{}
	for _, r := range auditRecords(t, trail, "schedule") {
		if r.Name != "tests" || r.Outcome != "started" || r.User != "alice" || r.Conversation != "app:alice" ||
			r.Slot == nil || r.MsgID != fmt.Sprintf("schedule:tests:%d", r.Slot.Unix()) || fired[r.MsgID] {
			t.Errorf("schedule audit record %+v", r)
		}
		fired[r.MsgID] = true
	}
	if len(fired) != len(slots) {
		t.Errorf("%d schedule audit records for %d fired slots", len(fired), len(slots))
	}
	// A turn the shutdown cut short runs again on the other replica, so
	// there may be more requests than slots, never fewer than answers.
	if got := len(userTexts(e.h.Server.ModelRequests())); got < 3 {
		t.Errorf("%d model requests for %d fired slots", got, len(slots))
	}
}

// auditRecords are the records of kind in the audit file at path.
func auditRecords(t *testing.T, path, kind string) []audit.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Record
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		r, err := audit.Decode([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}
