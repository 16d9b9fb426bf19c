package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A schedule's turn waits behind the conversation's running turn like any
// message: a slot that fires while alice's own turn runs is queued behind
// it, starts only after it ended, and is answered after it.
func TestE2EAppScheduleWaitsBehindTheRunningTurn(t *testing.T) {
	gate := sm.NewGate()
	e := newE2E(t, sm.ScriptFunc(func(r *sm.Request) (sm.Response, error) {
		if strings.Contains(r.UserText, "Refactor the parser.") {
			return sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Parser ", "refactored.")).WithHold(1, gate), nil
		}
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "All tests pass.")), nil
	}))
	t.Cleanup(gate.Release)
	api, _, cfg := appSchedule(t, e, "skip")
	ctx := within(t, 2*time.Minute)
	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	cb, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{URL: b.base + "/wecom/app", CorpID: e2eCorp, AgentID: e2eAgent,
		Token: e2eToken, EncodingAESKey: e2eAESKey})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := cb.Send(ctx, wecomtest.AppText("alice", "Refactor the parser.")); err != nil || rep.Status != 200 {
		t.Fatalf("alice's message: %v %v", rep, err)
	}
	reached(t, ctx, gate)
	held := time.Now().Unix()
	slot := waitFired(t, ctx, []*botProc{b}, func(s int64, _ string) bool { return s > held })
	msgid := fmt.Sprintf("schedule:tests:%d", slot)
	queued := b.logs.waitFor(t, ctx, "queued", map[string]any{"msgid": msgid})
	if pos, _ := queued["position"].(float64); pos < 1 {
		t.Fatalf("the slot's turn queued at position %v, want behind the running turn", queued["position"])
	}
	if started := b.logs.withMsg("turn started", map[string]any{"msgid": msgid}); len(started) != 0 {
		t.Fatalf("the slot's turn started while alice's ran: %v", started)
	}
	gate.Release()
	b.logs.waitFor(t, ctx, "turn ended", map[string]any{"msgid": msgid, "outcome": "finished"})

	// In the log: alice's turn ended before the slot's started.
	order := map[string]int{}
	b.logs.find(func(l map[string]any) bool {
		switch {
		case l["msg"] == "turn ended" && !strings.HasPrefix(fmt.Sprint(l["msgid"]), "schedule:"):
			order["alice ended"] = len(order) + 1
		case l["msg"] == "turn started" && l["msgid"] == msgid:
			order["slot started"] = len(order) + 1
		}
		return false
	})
	if order["alice ended"] == 0 || order["slot started"] < order["alice ended"] {
		t.Fatalf("order of alice's end and the slot's start: %v", order)
	}
	// And delivered in that order by message/send (slots before alice's
	// message may have answered before hers).
	answers := func() []string {
		var out []string
		for _, d := range api.Delivered("alice", "markdown") {
			out = append(out, d.Content)
		}
		return out
	}
	herThenSlot := func(wecomtest.AppRecord) bool {
		a := answers()
		hers := slices.Index(a, "Parser refactored.")
		return hers >= 0 && slices.Contains(a[hers+1:], readOnlyHeader+"All tests pass.")
	}
	if _, err := api.Wait(ctx, herThenSlot); err != nil {
		t.Fatalf("answers delivered %q, want alice's, then a slot's: %v", answers(), err)
	}
}
