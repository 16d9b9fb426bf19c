package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// Kill -9 the replica running a scheduled turn: the other replica fails
// that turn's card with "stopped before it finished" (pushed by
// message/send) and carries on with the next slot, whose answer arrives.
// With missed: skip the lost slot is not run again; with missed: once it
// runs once more (its id with ":rerun"), and its card says so.
func TestE2EAppScheduleSurvivesKill(t *testing.T) {
	for _, c := range []struct {
		missed, card string
		rerun        bool
	}{
		{"skip", "stopped before it finished. Send the message again.", false},
		{"once", "stopped before it finished. It runs once more.", true},
	} {
		t.Run(c.missed, func(t *testing.T) { scheduleSurvivesKill(t, c.missed, c.card, c.rerun) })
	}
}

func scheduleSurvivesKill(t *testing.T, missed, card string, rerun bool) {
	gate := sm.NewGate()
	var n atomic.Int32
	e := newE2E(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		if n.Add(1) == 1 {
			return sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Still ", "running")).WithHold(1, gate), nil
		}
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "All tests pass.")), nil
	}))
	t.Cleanup(gate.Release)
	api := wecomtest.NewAppAPI(wecomtest.AppAPIOptions{CorpID: e2eCorp, Secret: e2eAppSecret, AgentID: e2eAgent})
	t.Cleanup(api.Close)
	e.extra = "\nschedules:\n  tests:\n    cron: \"@every 5s\"\n    conversation: app:alice\n    prompt: Run the tests.\n    missed: " + missed + "\n"
	cfg := appConfig(t, e, api)
	ctx := within(t, 4*time.Minute)
	a := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	reached(t, ctx, gate)
	runner, other := a, b
	if len(a.logs.withMsg("turn started", nil)) == 0 {
		runner, other = b, a
	}
	lost, _ := runner.logs.withMsg("turn started", nil)[0]["msgid"].(string)
	kill9(t, runner)
	gate.Release()
	delivered := func(content string) func(wecomtest.AppRecord) bool {
		return func(wecomtest.AppRecord) bool {
			for _, d := range api.Delivered("alice", "") {
				if d.MsgType == "markdown" && strings.Contains(d.Content, content) {
					return true
				}
			}
			return false
		}
	}
	if _, err := api.Wait(ctx, delivered(card)); err != nil {
		t.Fatalf("the lost turn's failure: %v; delivered %+v", err, api.Delivered("alice", ""))
	}
	if rerun {
		other.logs.waitFor(t, ctx, "turn ended", map[string]any{"msgid": lost + ":rerun", "outcome": "finished"})
	}
	if _, err := api.Wait(ctx, delivered(readOnlyHeader+"All tests pass.")); err != nil {
		t.Fatalf("the next slot's answer: %v; delivered %+v", err, api.Delivered("alice", ""))
	}
	if len(other.logs.withMsg("schedule fired", map[string]any{"schedule": "tests"})) == 0 {
		t.Fatalf("the surviving replica fired no slot; logs:\n%s", other.logs)
	}
	other.stop()
	reruns := other.logs.withMsg("running again the turn of a replica that stopped before it finished", nil)
	switch {
	case rerun && (len(reruns) != 1 || reruns[0]["msgid"] != lost):
		t.Errorf("missed: once ran again %v, want %s once", reruns, lost)
	case !rerun && len(reruns) != 0:
		t.Errorf("missed: skip ran the lost slot again: %v", reruns)
	}
	if !rerun && len(other.logs.withMsg("turn started", map[string]any{"msgid": lost + ":rerun"})) != 0 {
		t.Errorf("missed: skip started %s:rerun", lost)
	}
}
