package codex

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// RateLimitWindow is one window of the account's rate limits, as Codex
// reports it (account/rateLimits/read): how much of it is used, how long
// it is, and when it resets (zero when Codex does not say).
type RateLimitWindow struct {
	// Limit names the bucket ("codex", or Codex's limitName).
	Limit string
	// Which is "primary" or "secondary".
	Which       string
	UsedPercent int
	Window      time.Duration
	ResetsAt    time.Time
}

type rateLimitWindow struct {
	UsedPercent        int    `json:"usedPercent"`
	WindowDurationMins *int64 `json:"windowDurationMins"`
	ResetsAt           *int64 `json:"resetsAt"`
}

type rateLimitSnapshot struct {
	LimitID   *string          `json:"limitId"`
	LimitName *string          `json:"limitName"`
	Primary   *rateLimitWindow `json:"primary"`
	Secondary *rateLimitWindow `json:"secondary"`
}

type rateLimitsResponse struct {
	RateLimits          *rateLimitSnapshot           `json:"rateLimits"`
	RateLimitsByLimitID map[string]rateLimitSnapshot `json:"rateLimitsByLimitId"`
}

// RateLimits reads the account's rate-limit windows. An account Codex
// knows no limits of (an API key, a custom provider) has none, or Codex
// answers with an error, which is returned.
func (a *Agent) RateLimits(ctx context.Context) ([]RateLimitWindow, error) {
	c, _, err := a.ensureConn(ctx)
	if err != nil {
		return nil, err
	}
	var r rateLimitsResponse
	if err := c.call(ctx, "account/rateLimits/read", nil, &r); err != nil {
		return nil, fmt.Errorf("codex account/rateLimits/read: %w", err)
	}
	snaps := r.RateLimitsByLimitID
	if len(snaps) == 0 && r.RateLimits != nil {
		snaps = map[string]rateLimitSnapshot{"": *r.RateLimits}
	}
	ids := make([]string, 0, len(snaps))
	for id := range snaps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []RateLimitWindow
	for _, id := range ids {
		s := snaps[id]
		name := id
		if s.LimitName != nil && *s.LimitName != "" {
			name = *s.LimitName
		} else if name == "" && s.LimitID != nil {
			name = *s.LimitID
		}
		for _, w := range []struct {
			which string
			w     *rateLimitWindow
		}{{"primary", s.Primary}, {"secondary", s.Secondary}} {
			if w.w == nil {
				continue
			}
			win := RateLimitWindow{Limit: name, Which: w.which, UsedPercent: w.w.UsedPercent}
			if w.w.WindowDurationMins != nil {
				win.Window = time.Duration(*w.w.WindowDurationMins) * time.Minute
			}
			if w.w.ResetsAt != nil {
				win.ResetsAt = time.Unix(*w.w.ResetsAt, 0)
			}
			out = append(out, win)
		}
	}
	return out, nil
}
