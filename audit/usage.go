package audit

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/wecodex/wecodex/bot"
)

// Usage is what one user or project used: turns, tokens and approvals.
type Usage struct {
	Turns int
	// Tokens are the turns' tokens, total and by kind.
	Input, Output, Total int64
	// Asked are the approvals their turns asked; Decided the ones they
	// decided (users only).
	Asked, Decided int
}

// Report is usage per user and per project ("-": no project).
type Report struct {
	Users    map[string]*Usage
	Projects map[string]*Usage
}

// NewReport is an empty report.
func NewReport() *Report {
	return &Report{Users: map[string]*Usage{}, Projects: map[string]*Usage{}}
}

func at(m map[string]*Usage, k string) *Usage {
	if k == "" {
		k = "-"
	}
	u := m[k]
	if u == nil {
		u = &Usage{}
		m[k] = u
	}
	return u
}

// Add counts one record: a turn at its end (turn_ended, so a turn still
// running is not counted yet), an approval when asked, and a decision by
// whoever decided it.
func (rp *Report) Add(r Record) {
	switch bot.AuditKind(r.Kind) {
	case bot.AuditTurnEnded:
		for _, u := range []*Usage{at(rp.Users, r.User), at(rp.Projects, r.Project)} {
			u.Turns++
			if r.Tokens != nil {
				u.Input += r.Tokens.Input
				u.Output += r.Tokens.Output
				u.Total += r.Tokens.Total
			}
		}
	case bot.AuditApprovalAsked:
		at(rp.Users, r.User).Asked++
		at(rp.Projects, r.Project).Asked++
	case bot.AuditApprovalDecided:
		if r.By != "" {
			at(rp.Users, r.By).Decided++
		}
	}
}

// Write prints the report: users, then projects, each by tokens used, most
// first.
func (rp *Report) Write(w io.Writer) error {
	for _, part := range []struct {
		title string
		m     map[string]*Usage
	}{{"USER", rp.Users}, {"PROJECT", rp.Projects}} {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tTURNS\tTOKENS\tINPUT\tOUTPUT\tAPPROVALS ASKED\tAPPROVALS DECIDED\n", part.title)
		for _, k := range sorted(part.m) {
			u := part.m[k]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", k, u.Turns, u.Total, u.Input, u.Output, u.Asked, u.Decided)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if part.title == "USER" {
			fmt.Fprintln(w)
		}
	}
	return nil
}

func sorted(m map[string]*Usage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := m[keys[i]], m[keys[j]]
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return keys[i] < keys[j]
	})
	return keys
}
