package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// With the whole deployment (two app replicas) down over three slots of an
// @every 2s schedule with missed: once, the two replicas that start again
// run one catch-up, the newest missed slot, not one per missed slot: the
// slots before it never run, its turn is answered, it is one caught_up
// audit record and one count, and the next slot runs on time, once.
func TestE2EAppScheduleMissedOnce(t *testing.T) {
	e := newE2E(t, sm.ScriptFunc(func(*sm.Request) (sm.Response, error) {
		return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "All tests pass.")), nil
	}))
	_, trail, cfg := appSchedule(t, e, "once")
	ctx := within(t, 3*time.Minute)
	first := twoReplicas(t, e, cfg)
	waitFired(t, ctx, first, func(int64, string) bool { return true })
	for _, p := range first {
		p.stop()
	}
	last := newestSlot(firedSlots(first...))
	// Nobody is up for last+2, last+4 and last+6.
	waitUntil(t, ctx, time.Unix(last+7, 0))
	again := twoReplicas(t, e, cfg)
	catchUp := waitFired(t, ctx, again, func(_ int64, outcome string) bool { return outcome == "caught_up" })
	if catchUp < last+6 {
		t.Fatalf("caught up slot %d, want the newest missed one, at least %d (last before the stop %d)", catchUp, last+6, last)
	}
	waitFired(t, ctx, again, func(slot int64, _ string) bool { return slot == catchUp+2 })
	waitTurnEnded(t, ctx, again, fmt.Sprintf("schedule:tests:%d", catchUp))
	counted := 0
	for _, p := range again {
		_, text := get(t, p.base+"/metrics")
		if strings.Contains(text, `wecodex_schedule_runs_total{name="tests",outcome="caught_up"} 1`+"\n") {
			counted++
		}
	}
	for _, p := range again {
		p.stop()
	}

	fired := firedSlots(append(first, again...)...)
	t.Logf("slot outcomes (last before the stop %d, caught up %d): %v", last, catchUp, fired)
	for slot, outcomes := range fired {
		switch {
		case len(outcomes) != 1:
			t.Errorf("slot %d fired %d times: %v", slot, len(outcomes), outcomes)
		case slot > last && slot < catchUp:
			t.Errorf("missed slot %d ran (%v): want only the one catch-up, %d", slot, outcomes, catchUp)
		case slot == catchUp && outcomes[0] != "caught_up", slot != catchUp && outcomes[0] != "started":
			t.Errorf("slot %d fired %v", slot, outcomes)
		}
	}
	// (Counted after its fire is logged, but its turn has ended since.)
	if counted != 1 {
		t.Errorf("%d replicas count one caught_up run, want 1", counted)
	}
	var catchUps []string
	for _, r := range auditRecords(t, trail, "schedule") {
		if r.Outcome == "caught_up" {
			catchUps = append(catchUps, r.MsgID)
		}
	}
	if want := fmt.Sprintf("schedule:tests:%d", catchUp); len(catchUps) != 1 || catchUps[0] != want {
		t.Errorf("caught_up audit records %q, want one, %s", catchUps, want)
	}
}

// firedSlots is each slot of the schedule tests that procs fired, with the
// outcome of each fire, from their "schedule fired" log lines.
func firedSlots(procs ...*botProc) map[int64][]string { return firedSlotsOf("tests", procs...) }

// firedSlotsOf is firedSlots of the schedule name.
func firedSlotsOf(name string, procs ...*botProc) map[int64][]string {
	out := map[int64][]string{}
	for _, p := range procs {
		for _, l := range p.logs.withMsg("schedule fired", map[string]any{"schedule": name}) {
			slot, _ := l["slot"].(float64)
			outcome, _ := l["outcome"].(string)
			out[int64(slot)] = append(out[int64(slot)], outcome)
		}
	}
	return out
}

func newestSlot(fired map[int64][]string) int64 {
	var n int64
	for slot := range fired {
		n = max(n, slot)
	}
	return n
}

// waitFired waits until one of procs fires a slot of the schedule tests
// that match accepts, and returns that slot.
func waitFired(t *testing.T, ctx context.Context, procs []*botProc, match func(slot int64, outcome string) bool) int64 {
	t.Helper()
	return waitFiredOf(t, ctx, procs, "tests", match)
}

// waitFiredOf is waitFired of the schedule name.
func waitFiredOf(t *testing.T, ctx context.Context, procs []*botProc, name string, match func(slot int64, outcome string) bool) int64 {
	t.Helper()
	line := waitAnyLine(t, ctx, procs, "a fired slot of "+name, func(l map[string]any) bool {
		slot, _ := l["slot"].(float64)
		outcome, _ := l["outcome"].(string)
		return l["msg"] == "schedule fired" && l["schedule"] == name && match(int64(slot), outcome)
	})
	slot, _ := line["slot"].(float64)
	return int64(slot)
}

// waitTurnEnded waits until one of procs finishes the turn msgid.
func waitTurnEnded(t *testing.T, ctx context.Context, procs []*botProc, msgid string) {
	t.Helper()
	waitAnyLine(t, ctx, procs, "turn "+msgid+" finished", matchLine("turn ended", map[string]any{"msgid": msgid, "outcome": "finished"}))
}

// waitAnyLine waits until one of procs logs a line match accepts.
func waitAnyLine(t *testing.T, ctx context.Context, procs []*botProc, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	for {
		changed := make([]<-chan struct{}, len(procs))
		for i, p := range procs {
			got, ch := p.logs.find(match)
			if len(got) > 0 {
				return got[0]
			}
			changed[i] = ch
		}
		select {
		case <-anyClosed(ctx, changed):
		case <-ctx.Done():
			var logs strings.Builder
			for _, p := range procs {
				logs.WriteString(p.logs.String())
			}
			t.Fatalf("%s: none logged; logs:\n%s", what, logs.String())
		}
	}
}

// anyClosed is closed once one of chans is (or ctx ends).
func anyClosed(ctx context.Context, chans []<-chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	var once sync.Once
	for _, ch := range chans {
		go func() {
			select {
			case <-ch:
			case <-ctx.Done():
			}
			once.Do(func() { close(out) })
		}()
	}
	return out
}

// waitUntil waits for the wall clock to reach at: the test needs the
// deployment down over given slots, which is a time, not a speed.
func waitUntil(t *testing.T, ctx context.Context, at time.Time) {
	t.Helper()
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		t.Fatalf("waiting for %s: %v", at.Format(time.TimeOnly), ctx.Err())
	}
}
