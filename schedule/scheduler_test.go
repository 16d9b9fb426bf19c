package schedule_test

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/schedule"
	"github.com/wecodex/wecodex/store"
)

// starts records the turns started, across replicas.
type starts struct {
	mu  sync.Mutex
	ids []string
}

func (s *starts) Start(_ context.Context, t schedule.Turn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = append(s.ids, t.ID)
	return nil
}

func (s *starts) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ids...)
}

// counts counts the outcomes and keeps the audit records, in order.
type counts struct {
	mu     sync.Mutex
	n      map[string]int
	audits []string
}

func (c *counts) Audit(_ context.Context, e bot.AuditEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.audits = append(c.audits, fmt.Sprintf("%s %s %d %s user=%s conv=%s msgid=%s", e.Kind, e.Name, e.At.Unix(), e.Outcome, e.User, e.Conversation, e.MsgID))
}

func (c *counts) ScheduleRun(name, outcome string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name+" "+outcome]++
}

func job(t *testing.T, id, expr string, missed schedule.Missed) schedule.Job {
	t.Helper()
	spec, err := schedule.Parse(expr, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return schedule.Job{ID: id, Spec: spec, Missed: missed,
		Turn: schedule.Turn{Conversation: "app:alice", Prompt: "run the tests"}}
}

func replica(t *testing.T, db *store.DB, name string, rec *starts, obs *counts, jobs ...schedule.Job) *schedule.Scheduler {
	return schedule.New(schedule.Config{Replica: name, Claims: store.NewSchedules(db), Starter: rec, Observer: obs, Auditor: obs,
		Jobs: func(context.Context) ([]schedule.Job, error) { return jobs, nil }, Log: slog.New(slog.DiscardHandler)})
}

// base is a slot of @every 2s: its unix second is even.
var base = time.Unix(1_800_000_000, 0)

func slotIDs(id string, from, to int) []string {
	var out []string
	for s := from; s <= to; s += 2 {
		out = append(out, "schedule:"+id+":"+strconv.Itoa(s))
	}
	return out
}

// Two replicas ticking at interleaved, overlapping times over 9 s of an
// @every 2s schedule start each slot once: 4 slots, 4 turns, none twice.
func TestTwoReplicasRunEachSlotOnce(t *testing.T) {
	db := testenv.OpenStore(t, testenv.Prefix(t, "sched-once"))
	rec, obs := &starts{}, &counts{}
	j := job(t, "tests", "@every 2s", schedule.MissedSkip)
	a, b := replica(t, db, "a", rec, obs, j), replica(t, db, "b", rec, obs, j)
	ctx := context.Background()
	start := base.Add(500 * time.Millisecond)
	a.Tick(ctx, start)
	b.Tick(ctx, start.Add(100*time.Millisecond))
	// Each replica wakes on its own clock: a a little early, b late, both
	// within one slot, and sometimes both on the same instant.
	for ms := 0; ms <= 9000; ms += 250 {
		now := start.Add(time.Duration(ms) * time.Millisecond)
		a.Tick(ctx, now)
		b.Tick(ctx, now.Add(time.Duration(ms%700)*time.Millisecond))
	}
	want := slotIDs("tests", 1_800_000_002, 1_800_000_010)
	if got := rec.list(); !reflect.DeepEqual(got, want) {
		t.Fatalf("turns started:\n got %q\nwant %q", got, want)
	}
	if got := obs.n["tests started"]; got != len(want) {
		t.Fatalf("counted %d started, want %d (%v)", got, len(want), obs.n)
	}
}

// A replica that dies leaves the next slots to the one still up.
func TestSurvivorCarriesOn(t *testing.T) {
	db := testenv.OpenStore(t, testenv.Prefix(t, "sched-survivor"))
	rec, obs := &starts{}, &counts{}
	j := job(t, "tests", "@every 2s", schedule.MissedSkip)
	a, b := replica(t, db, "a", rec, obs, j), replica(t, db, "b", rec, obs, j)
	ctx := context.Background()
	a.Tick(ctx, base.Add(time.Second))
	b.Tick(ctx, base.Add(time.Second))
	a.Tick(ctx, base.Add(2*time.Second)) // a takes slot +2, then dies
	for s := 3; s <= 7; s++ {
		b.Tick(ctx, base.Add(time.Duration(s)*time.Second))
	}
	want := slotIDs("tests", 1_800_000_002, 1_800_000_006)
	if got := rec.list(); !reflect.DeepEqual(got, want) {
		t.Fatalf("turns started:\n got %q\nwant %q", got, want)
	}
}

// With the whole deployment down over three slots, missed: once runs one
// catch-up when two replicas start again; missed: skip runs none.
func TestMissedSlots(t *testing.T) {
	db, rec, obs, once, skip, _ := ranSlot2(t, "sched-missed")
	ctx := context.Background()
	// Everything stops after slot +2.
	// Down over +4, +6, +8; two new replicas start at +9.
	a2, b2 := replica(t, db, "a2", rec, obs, once, skip), replica(t, db, "b2", rec, obs, once, skip)
	a2.Tick(ctx, base.Add(9*time.Second))
	b2.Tick(ctx, base.Add(9*time.Second))
	a2.Tick(ctx, base.Add(10*time.Second))
	b2.Tick(ctx, base.Add(10*time.Second+300*time.Millisecond))
	want := []string{
		"schedule:once:1800000002", "schedule:skip:1800000002",
		"schedule:once:1800000008", // the one catch-up
		"schedule:once:1800000010", "schedule:skip:1800000010",
	}
	if got := rec.list(); !reflect.DeepEqual(got, want) {
		t.Fatalf("turns started:\n got %q\nwant %q", got, want)
	}
	if obs.n["once caught_up"] != 1 || obs.n["skip missed"] != 2 {
		t.Fatalf("outcomes %v: want once caught_up 1 and skip missed 2 (each starting replica)", obs.n)
	}
	// Each fire is one audit record, with its slot and outcome; the
	// skipped slots fired nothing.
	wantAudits := []string{
		"schedule once 1800000002 started user=alice conv=app:alice msgid=schedule:once:1800000002",
		"schedule skip 1800000002 started user=alice conv=app:alice msgid=schedule:skip:1800000002",
		"schedule once 1800000008 caught_up user=alice conv=app:alice msgid=schedule:once:1800000008",
		"schedule once 1800000010 started user=alice conv=app:alice msgid=schedule:once:1800000010",
		"schedule skip 1800000010 started user=alice conv=app:alice msgid=schedule:skip:1800000010",
	}
	if !reflect.DeepEqual(obs.audits, wantAudits) {
		t.Fatalf("audit records:\n got %q\nwant %q", obs.audits, wantAudits)
	}
}

// A paused job fires nothing; a job new to the store has missed nothing.
func TestPausedAndNew(t *testing.T) {
	db := testenv.OpenStore(t, testenv.Prefix(t, "sched-paused"))
	rec, obs := &starts{}, &counts{}
	j := job(t, "p", "@every 2s", schedule.MissedOnce)
	j.Paused = true
	a := replica(t, db, "a", rec, obs, j)
	for s := 1; s <= 5; s++ {
		a.Tick(context.Background(), base.Add(time.Duration(s)*time.Second))
	}
	n := job(t, "n", "@every 2s", schedule.MissedOnce)
	b := replica(t, db, "b", rec, obs, n)
	b.Tick(context.Background(), base.Add(5*time.Second))
	if got := rec.list(); len(got) != 0 {
		t.Fatalf("started %q, want nothing", got)
	}
	if got := b.NextSlots(); !reflect.DeepEqual(got, []schedule.Slot{{ID: "n", Next: base.Add(6 * time.Second)}}) {
		t.Fatalf("next slots %v", got)
	}
}

// A replica starting just after a slot that a running replica has not
// claimed yet takes it as on time: one run, counted started, not missed
// (skip) nor caught up (once).
func TestReplicaStartingAtASlot(t *testing.T) {
	db, rec, obs, once, skip, a := ranSlot2(t, "sched-startslot")
	ctx := context.Background()
	b := replica(t, db, "b", rec, obs, once, skip)
	b.Tick(ctx, base.Add(4*time.Second+300*time.Millisecond)) // b starts before a's late tick of +4
	a.Tick(ctx, base.Add(4*time.Second+500*time.Millisecond))
	want := []string{
		"schedule:once:1800000002", "schedule:skip:1800000002",
		"schedule:once:1800000004", "schedule:skip:1800000004",
	}
	if got := rec.list(); !reflect.DeepEqual(got, want) {
		t.Fatalf("turns started:\n got %q\nwant %q", got, want)
	}
	if want := map[string]int{"once started": 2, "skip started": 2}; !reflect.DeepEqual(obs.n, want) {
		t.Fatalf("outcomes %v, want %v", obs.n, want)
	}
}

// ranSlot2 is a store where replica a ran slot +2 of two @every 2s jobs,
// once (missed: once) and skip (missed: skip).
func ranSlot2(t *testing.T, prefix string) (db *store.DB, rec *starts, obs *counts, once, skip schedule.Job, a *schedule.Scheduler) {
	db = testenv.OpenStore(t, testenv.Prefix(t, prefix))
	rec, obs = &starts{}, &counts{}
	once = job(t, "once", "@every 2s", schedule.MissedOnce)
	skip = job(t, "skip", "@every 2s", schedule.MissedSkip)
	a = replica(t, db, "a", rec, obs, once, skip)
	a.Tick(context.Background(), base.Add(time.Second))
	a.Tick(context.Background(), base.Add(2*time.Second))
	return db, rec, obs, once, skip, a
}
