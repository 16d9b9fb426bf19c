package schedule

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// Claims is the store's slot ledger shared by every replica (*store.Schedules).
type Claims interface {
	// ClaimSlot claims job id's slot at (unix seconds) for replica: true
	// for exactly one caller across replicas. Winning also makes at the
	// job's last slot, when it is newer.
	ClaimSlot(ctx context.Context, id string, at int64, replica string) (bool, error)
	// LastSlot is the newest slot claimed (unix seconds); 0 for none ever.
	LastSlot(ctx context.Context, id string) (int64, error)
}

// Starter starts a turn: the engine's push intake, which queues it behind
// the conversation's running turn. A nil error means it is queued.
type Starter interface {
	Start(ctx context.Context, t Turn) error
}

// Observer counts fires (metrics.Metrics implements it).
type Observer interface {
	// ScheduleRun counts one outcome of a schedule's slot.
	ScheduleRun(name, outcome string)
}

// The outcomes of a slot this replica claimed.
const (
	OutcomeStarted  = "started"   // its turn is queued
	OutcomeCaughtUp = "caught_up" // a missed slot's one catch-up is queued
	OutcomeMissed   = "missed"    // the deployment was down over slots; skipped (counted by each replica that starts)
	OutcomeFailed   = "failed"    // its turn could not be queued
)

// Jobs lists the schedules now: the YAML's and the chat's. It is asked on
// every tick, so a schedule added, paused or removed from a chat takes
// effect within one refresh on every replica.
type Jobs func(ctx context.Context) ([]Job, error)

// Config is a Scheduler's parts.
type Config struct {
	Replica string
	Jobs    Jobs
	Claims  Claims
	Starter Starter
	// Observer and Auditor may be nil.
	Observer Observer
	Auditor  Auditor
	Log      *slog.Logger
	// Now is the clock; nil means time.Now. Tests drive Tick instead of Run.
	Now func() time.Time
	// Refresh bounds the wait between ticks, so chat schedules' changes are
	// seen; zero means 10s.
	Refresh time.Duration
}

// Scheduler fires every job's slots on this replica; the claims make each
// slot fire once across replicas.
type Scheduler struct {
	cfg Config

	mu   sync.Mutex
	seen map[string]time.Time // job → the time up to which its slots were looked at
	next map[string]time.Time // job → its next slot, for /readyz
}

// New returns a scheduler; call Run (or Tick).
func New(cfg Config) *Scheduler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = 10 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Auditor == nil {
		cfg.Auditor = nopAuditor{}
	}
	return &Scheduler{cfg: cfg, seen: map[string]time.Time{}, next: map[string]time.Time{}}
}

type nopObserver struct{}

func (nopObserver) ScheduleRun(string, string) {}

// Run ticks at each next slot (at least every Refresh) until ctx ends.
func (s *Scheduler) Run(ctx context.Context) error {
	for {
		wait := s.Tick(ctx, s.cfg.Now())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// Tick fires what is due at now and returns how long to wait for the next
// tick. A job this replica sees for the first time first settles the slots
// nobody was up for (its missed policy); after that each tick fires the
// newest slot since the last tick, once across replicas. Slots a stalled
// replica slept through beside that one are left to the others.
func (s *Scheduler) Tick(ctx context.Context, now time.Time) time.Duration {
	jobs, err := s.cfg.Jobs(ctx)
	if err != nil {
		s.cfg.Log.Warn("list schedules; trying again", "err", err)
		return s.cfg.Refresh
	}
	wait := s.cfg.Refresh
	next := make(map[string]time.Time, len(jobs))
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		if n := s.tickJob(ctx, j, now); !n.IsZero() {
			next[j.ID] = n
			if d := n.Sub(now); d < wait {
				wait = d
			}
		}
	}
	s.mu.Lock()
	s.next = next
	s.mu.Unlock()
	return max(wait, time.Millisecond)
}

// tickJob fires j's due slot, if any, and returns its next slot (zero when
// paused or none comes).
func (s *Scheduler) tickJob(ctx context.Context, j Job, now time.Time) time.Time {
	s.mu.Lock()
	seen, known := s.seen[j.ID]
	if now.After(seen) {
		s.seen[j.ID] = now // a clock stepped back never re-walks slots
	}
	s.mu.Unlock()
	if j.Paused {
		return time.Time{}
	}
	if !known {
		s.settleMissed(ctx, j, now)
	} else if at, n := j.Spec.Latest(seen, now); n > 0 {
		s.fire(ctx, j, at, OutcomeStarted)
	}
	return j.Spec.Next(now)
}

// startGrace is how old the one slot since a job's last claimed slot may
// be when a replica starts and still count as on time rather than missed:
// a replica that is up claims a slot within milliseconds of it, so one
// that is seconds old was claimed by nobody.
const startGrace = 2 * time.Second

// settleMissed handles the slots between j's last claimed slot and now,
// which no replica was up for: missed: once runs the newest of them, once
// across replicas; skip counts it missed. A job never claimed before has
// missed nothing: it is new.
func (s *Scheduler) settleMissed(ctx context.Context, j Job, now time.Time) {
	last, err := s.cfg.Claims.LastSlot(ctx, j.ID)
	if err != nil {
		s.cfg.Log.Warn("read the schedule's last slot; missed slots are not looked for", "schedule", j.ID, "err", err)
		return
	}
	if last == 0 {
		return
	}
	at, n := j.Spec.Latest(time.Unix(last, 0), now)
	if n == 0 {
		return
	}
	if n == 1 && now.Sub(at) < startGrace {
		// Only the slot that just came, which a replica that is up claims
		// at this very moment: it is on time, not missed (a replica
		// starting beside running ones would else count it missed, or run
		// it as a catch-up).
		s.fire(ctx, j, at, OutcomeStarted)
		return
	}
	s.cfg.Log.Info("schedule missed slots while no replica was up", "schedule", j.ID, "missed", n, "policy", string(j.Missed))
	if j.Missed != MissedOnce {
		// Not claimed: a replica that is up may be about to run the newest
		// of them, which only looks missed from here.
		s.cfg.Observer.ScheduleRun(j.ID, OutcomeMissed)
		return
	}
	s.fire(ctx, j, at, OutcomeCaughtUp)
}

// fire claims j's slot at and, when this replica won it, starts its turn
// (outcome OutcomeStarted or OutcomeCaughtUp).
func (s *Scheduler) fire(ctx context.Context, j Job, at time.Time, outcome string) {
	won, err := s.cfg.Claims.ClaimSlot(ctx, j.ID, at.Unix(), s.cfg.Replica)
	if err != nil {
		s.cfg.Log.Warn("claim a schedule's slot; this replica does not run it", "schedule", j.ID, "slot", at.Unix(), "err", err)
		return
	}
	if !won {
		return // another replica runs it
	}
	log := s.cfg.Log.With("schedule", j.ID, "slot", at.Unix(), "conv", j.Turn.Conversation)
	t := j.slotTurn(at)
	if err := s.cfg.Starter.Start(ctx, t); err != nil {
		log.Warn("schedule fired but its turn could not be queued", "err", err)
		outcome = OutcomeFailed
	} else {
		log.Info("schedule fired", "outcome", outcome)
	}
	s.cfg.Observer.ScheduleRun(j.ID, outcome)
	s.cfg.Auditor.Audit(ctx, fireEvent(bot.AuditSchedule, j.ID, t, at, outcome))
}

// Slot is a job's next slot, for /readyz.
type Slot struct {
	ID   string    `json:"schedule"`
	Next time.Time `json:"next"`
}

// NextSlots lists each active job's next slot as of the last tick, by id.
func (s *Scheduler) NextSlots() []Slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Slot, 0, len(s.next))
	for id, t := range s.next {
		out = append(out, Slot{ID: id, Next: t})
	}
	sort.Slice(out, func(i, k int) bool { return out[i].ID < out[k].ID })
	return out
}
