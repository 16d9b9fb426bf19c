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
func TestE2EAppScheduleSurvivesKill(t *testing.T) {
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
	e.extra = "\nschedules:\n  tests:\n    cron: \"@every 5s\"\n    conversation: app:alice\n    prompt: Run the tests.\n"
	cfg := appConfig(t, e, api)
	ctx := within(t, 4*time.Minute)
	a := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	reached(t, ctx, gate)
	runner, other := a, b
	if len(a.logs.withMsg("turn started", nil)) == 0 {
		runner, other = b, a
	}
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
	if _, err := api.Wait(ctx, delivered("stopped before it finished")); err != nil {
		t.Fatalf("the lost turn's failure: %v; delivered %+v", err, api.Delivered("alice", ""))
	}
	if _, err := api.Wait(ctx, delivered("All tests pass.")); err != nil {
		t.Fatalf("the next slot's answer: %v; delivered %+v", err, api.Delivered("alice", ""))
	}
	if len(other.logs.withMsg("schedule fired", map[string]any{"schedule": "tests"})) == 0 {
		t.Fatalf("the surviving replica fired no slot; logs:\n%s", other.logs)
	}
	other.stop()
}
