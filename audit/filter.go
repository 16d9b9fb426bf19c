package audit

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Filter picks records for `wecodex audit`; a zero field matches all.
type Filter struct {
	Since        time.Time
	User         string
	Conversation string
	Kind         string
}

// Match reports whether r passes f.
func (f Filter) Match(r Record) bool {
	return (f.Since.IsZero() || !r.Time.Before(f.Since)) &&
		(f.User == "" || r.User == f.User) &&
		(f.Conversation == "" || r.Conversation == f.Conversation) &&
		(f.Kind == "" || r.Kind == f.Kind)
}

// ParseAge reads an age like 90d, 36h or 15m (days are 24 hours).
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not an age like 7d, 36h or 15m", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not an age like 7d, 36h or 15m", s)
	}
	return d, nil
}

// WriteTable prints records as a table: one line each, the kind's own
// fields folded into the last column.
func WriteTable(w io.Writer, records []Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tKIND\tUSER\tCONVERSATION\tSEQ\tREPLICA\tTURN\tDETAIL")
	for _, r := range records {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Time.Format(time.RFC3339), r.Kind, dash(r.User),
			dash(r.Conversation), r.Seq, dash(r.Replica), dash(r.Turn), detail(r))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// detail is what a record says beyond who, where and when.
func detail(r Record) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("msgid", r.MsgID)
	if r.Length != nil {
		add("length", strconv.Itoa(*r.Length))
	}
	add("name", r.Name)
	if r.Slot != nil {
		add("slot", r.Slot.Format(time.RFC3339))
	}
	if r.Timestamp != nil {
		add("timestamp", r.Timestamp.Format(time.RFC3339))
	}
	add("outcome", r.Outcome)
	if r.DurationMS != nil {
		add("duration", (time.Duration(*r.DurationMS) * time.Millisecond).String())
	}
	if r.Tokens != nil {
		add("tokens", strconv.FormatInt(r.Tokens.Total, 10))
	}
	if r.Approval != 0 {
		add("approval", "#"+strconv.FormatInt(r.Approval, 10))
	}
	add("verdict", r.Verdict)
	add("by", r.By)
	if r.What != "" {
		add("what", strconv.Quote(r.What))
	}
	if r.Command != "" {
		add("command", strconv.Quote(r.Command))
	}
	if r.ExitCode != nil {
		add("exit", strconv.Itoa(*r.ExitCode))
	}
	if len(r.Files) > 0 {
		add("files", strings.Join(r.Files, ","))
	}
	add("setting", r.Setting)
	add("value", r.Value)
	add("reason", r.Reason)
	add("detail", r.Detail)
	if r.Text != "" {
		add("text", strconv.Quote(r.Text))
	}
	return strings.Join(parts, " ")
}
