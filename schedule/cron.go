package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Spec is a parsed cron expression: when a schedule's slots are.
type Spec struct {
	expr  string
	every time.Duration // @every: slots on multiples of it since the epoch
	cron  cron.Schedule // otherwise
	loc   *time.Location
}

// parser reads five fields and the descriptors (@daily, @every 10m...), as
// the README documents; seconds and CRON_TZ= are not offered (timezone is
// its own key).
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Parse reads expr (five fields, or a descriptor such as @every 10m or
// @daily) in loc (nil: the server's local time). The error says what is
// wrong in an admin's words.
func Parse(expr string, loc *time.Location) (Spec, error) {
	expr = strings.TrimSpace(expr)
	if loc == nil {
		loc = time.Local
	}
	if strings.HasPrefix(expr, "CRON_TZ=") || strings.HasPrefix(expr, "TZ=") {
		return Spec{}, fmt.Errorf("%q: put the time zone in the schedule's timezone key, not in the expression", expr)
	}
	if d, ok := strings.CutPrefix(expr, "@every "); ok {
		// robfig's @every counts from when it was added, which differs per
		// replica; slots must be the same on every replica, so they sit on
		// multiples of the interval.
		every, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || every < time.Second || every%time.Second != 0 {
			return Spec{}, fmt.Errorf("%q: @every takes a whole number of seconds of at least 1s, like @every 10m", expr)
		}
		return Spec{expr: expr, every: every, loc: loc}, nil
	}
	s, err := parser.Parse(expr)
	if err != nil {
		return Spec{}, fmt.Errorf("%q is not a cron expression (five fields: minute hour day-of-month month day-of-week, like \"0 9 * * 1-5\", or @daily, @every 10m): %v", expr, err)
	}
	if ss, ok := s.(*cron.SpecSchedule); ok {
		ss.Location = loc
	}
	return Spec{expr: expr, cron: s, loc: loc}, nil
}

// String is the expression as written.
func (s Spec) String() string { return s.expr }

// Next is the first slot after t; the zero time when there is none (a
// date that never comes, like 30 February).
func (s Spec) Next(t time.Time) time.Time {
	if s.every > 0 {
		return s.floor(t).Add(s.every)
	}
	if s.cron == nil {
		return time.Time{}
	}
	return s.cron.Next(t.In(s.loc))
}

// floor is the @every slot at or before t: a multiple of the interval
// since the Unix epoch (time.Truncate counts from year 1, which agrees
// only for intervals that divide a day).
func (s Spec) floor(t time.Time) time.Time {
	sec := int64(s.every / time.Second)
	u := t.Unix()
	return time.Unix(u-((u%sec)+sec)%sec, 0).In(t.Location())
}

// maxSlotsWalked bounds the walk over the slots of a long gap (a deployment
// down for a week over a minutely schedule is 10 080).
const maxSlotsWalked = 100_000

// Latest is the newest slot in (after, upTo] and how many slots that span
// holds (n is a lower bound past maxSlotsWalked); n == 0 when it holds none.
func (s Spec) Latest(after, upTo time.Time) (latest time.Time, n int) {
	if s.every > 0 {
		last := s.floor(upTo)
		if !last.After(after) {
			return time.Time{}, 0
		}
		first := s.floor(after).Add(s.every)
		return last, int(last.Sub(first)/s.every) + 1
	}
	for t := s.Next(after); !t.IsZero() && !t.After(upTo) && n < maxSlotsWalked; t = s.Next(t) {
		latest, n = t, n+1
	}
	return latest, n
}
