package schedule_test

import (
	"testing"
	"time"

	"github.com/wecodex/wecodex/schedule"
)

func TestParse(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	// Wednesday 2 December 2026, 08:30 in Shanghai.
	from := time.Date(2026, 12, 2, 8, 30, 0, 0, shanghai)
	for _, c := range []struct {
		expr string
		loc  *time.Location
		want time.Time
	}{
		{"0 9 * * 1-5", shanghai, time.Date(2026, 12, 2, 9, 0, 0, 0, shanghai)},
		{"0 9 * * 1-5", time.UTC, time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)},
		{"@daily", shanghai, time.Date(2026, 12, 3, 0, 0, 0, 0, shanghai)},
		{"@every 10m", shanghai, time.Date(2026, 12, 2, 8, 40, 0, 0, shanghai)},
		{"*/15 * * * *", time.UTC, time.Date(2026, 12, 2, 0, 45, 0, 0, time.UTC)},
	} {
		s, err := schedule.Parse(c.expr, c.loc)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.expr, err)
		}
		if got := s.Next(from); !got.Equal(c.want) {
			t.Errorf("Parse(%q, %s).Next(%s) = %s, want %s", c.expr, c.loc, from, got, c.want)
		}
	}
	for expr, want := range map[string]string{
		"0 9 * *":               `"0 9 * *" is not a cron expression (five fields: minute hour day-of-month month day-of-week, like "0 9 * * 1-5", or @daily, @every 10m): expected exactly 5 fields, found 4: [0 9 * *]`,
		"@every soon":           `"@every soon": @every takes a whole number of seconds of at least 1s, like @every 10m`,
		"@every 500ms":          `"@every 500ms": @every takes a whole number of seconds of at least 1s, like @every 10m`,
		"CRON_TZ=UTC 0 9 * * *": `"CRON_TZ=UTC 0 9 * * *": put the time zone in the schedule's timezone key, not in the expression`,
		"61 * * * *":            `"61 * * * *" is not a cron expression (five fields: minute hour day-of-month month day-of-week, like "0 9 * * 1-5", or @daily, @every 10m): end of range (61) above maximum (59): 61`,
	} {
		if _, err := schedule.Parse(expr, time.UTC); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) = %v,\nwant %s", expr, err, want)
		}
	}
}

func TestLatest(t *testing.T) {
	s, _ := schedule.Parse("0 9 * * 1-5", time.UTC)
	// Friday 09:00 → the next Wednesday 10:00: Mon, Tue, Wed at 9.
	at, n := s.Latest(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	if n != 3 || !at.Equal(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("Latest = %s, %d; want Wednesday 09:00, 3", at, n)
	}
	e, _ := schedule.Parse("@every 2s", time.UTC)
	at, n = e.Latest(time.Unix(101, 0), time.Unix(108, 500))
	if n != 4 || at.Unix() != 108 {
		t.Fatalf("@every 2s Latest = %d, %d; want 108, 4", at.Unix(), n)
	}
	if _, n := e.Latest(time.Unix(108, 0), time.Unix(109, 0)); n != 0 {
		t.Fatalf("no slot in (108, 109], got %d", n)
	}
	// Slots sit on multiples of the interval since the Unix epoch, even
	// for one that does not divide a day.
	seven, _ := schedule.Parse("@every 7m", time.UTC)
	from := time.Unix(1_800_000_000, 0) // 1_800_000_000 = 4_285_714×420 + 120
	if got := seven.Next(from).Unix(); got != 1_800_000_300 {
		t.Fatalf("@every 7m Next(%d) = %d, want 1800000300", from.Unix(), got)
	}
	if at, n := seven.Latest(from, from.Add(15*time.Minute)); at.Unix() != 1_800_000_720 || n != 2 {
		t.Fatalf("@every 7m Latest = %d, %d; want 1800000720, 2", at.Unix(), n)
	}
}
