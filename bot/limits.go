package bot

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
)

// Limits are the per-user limits (limits.*); zero means no limit. Admins
// are never limited.
type Limits struct {
	// TurnsPerHour is limits.turns_per_user_per_hour: turns a user may
	// start per clock hour (UTC), across replicas.
	TurnsPerHour int
	// TokensPerDay is limits.tokens_per_user_per_day: once a user's turns
	// used this many tokens on a UTC day, their next message is refused
	// until the day ends. The turn that crosses it runs to its end.
	TokensPerDay int64
}

// The limits' names, as the card, the audit trail and
// wecodex_limited_total{limit} say them.
const (
	LimitTurns  = "turns_per_user_per_hour"
	LimitTokens = "tokens_per_user_per_day"
)

// LimitStore counts what each user used, across replicas.
type LimitStore interface {
	// TakeTurn counts one turn of user in the clock hour of now, unless
	// max are counted already; reset is when that hour ends.
	TakeTurn(ctx context.Context, user string, now time.Time, max int) (taken bool, reset time.Time, err error)
	// ReturnTurn gives back a turn TakeTurn counted in the hour of now for
	// a message that was not queued after all.
	ReturnTurn(ctx context.Context, user string, now time.Time) error
	// TokensUsed is what user's turns used on the UTC day of now.
	TokensUsed(ctx context.Context, user string, now time.Time) (int64, error)
	// AddTokens adds n to user's tokens on the UTC day of now.
	AddTokens(ctx context.Context, user string, now time.Time, n int64) error
	// TurnsUsed is how many turns TakeTurn counted for user in the hour of
	// now, and when that hour ends.
	TurnsUsed(ctx context.Context, user string, now time.Time) (int, time.Time, error)
}

// ProjectLimits is what Projects may add: a project's own limits
// (projects.<name>.limits).
type ProjectLimits interface {
	Limits(project string) LimitOverrides
}

// LimitOverrides are what a project changes of Limits: each field set
// replaces Limits' field in the project's conversations (0: no limit
// there), nil keeps it. Usage is counted per user, wherever it was used.
type LimitOverrides struct {
	TurnsPerHour *int
	TokensPerDay *int64
}

// over is base with o's overrides.
func (o LimitOverrides) over(base Limits) Limits {
	if o.TurnsPerHour != nil {
		base.TurnsPerHour = *o.TurnsPerHour
	}
	if o.TokensPerDay != nil {
		base.TokensPerDay = *o.TokensPerDay
	}
	return base
}

// limitsFor are the limits of m's conversation: its project's, where it
// overrides them. A project choice that cannot be read keeps Config.Limits.
func (in *intake) limitsFor(ctx context.Context, log *slog.Logger, m Message) Limits {
	pl, ok := in.cfg.Projects.(ProjectLimits)
	if !ok {
		return in.cfg.Limits
	}
	project, err := currentProject(ctx, in.cfg.Projects, in.store, m.Conversation, m.User)
	if err != nil {
		log.Warn("read the conversation's project for its limits; using limits.*", "err", err)
		return in.cfg.Limits
	}
	if project == "" {
		return in.cfg.Limits
	}
	return pl.Limits(project).over(in.cfg.Limits)
}

// limited says whether m may not start a turn now: the card's line, and
// the limit's name for the audit; "" when it may. A turn it may start is
// counted (taken true): give it back with returnTurn if it is not queued.
// A store that fails does not limit anyone: the limit is a quota, and a
// Redis outage should not stop the bot.
func (in *intake) limited(ctx context.Context, log *slog.Logger, m Message) (line, limit string, taken bool) {
	if in.limits == nil || in.cfg.Access.IsAdmin(m.User) {
		return "", "", false
	}
	lim := in.limitsFor(ctx, log, m)
	if lim.TurnsPerHour <= 0 && lim.TokensPerDay <= 0 {
		return "", "", false
	}
	now := time.Now()
	if lim.TokensPerDay > 0 {
		used, err := in.limits.TokensUsed(ctx, m.User, now)
		if err != nil {
			log.Warn("read the token count of a user; not limiting", "err", err)
		} else if used >= lim.TokensPerDay {
			return textLimited(LimitTokens, fmt.Sprintf("%d tokens per day", lim.TokensPerDay), dayEnd(now)), LimitTokens, false
		}
	}
	if lim.TurnsPerHour <= 0 {
		return "", "", false
	}
	ok, reset, err := in.limits.TakeTurn(ctx, m.User, now, lim.TurnsPerHour)
	switch {
	case err != nil:
		log.Warn("count a turn of a user; not limiting", "err", err)
		return "", "", false
	case !ok:
		return textLimited(LimitTurns, fmt.Sprintf("%d turns per hour", lim.TurnsPerHour), reset), LimitTurns, false
	}
	return "", "", true
}

// returnTurn gives back the turn limited counted for m.
func (in *intake) returnTurn(ctx context.Context, log *slog.Logger, m Message) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), retryAttemptTimeout)
	defer cancel()
	if err := in.limits.ReturnTurn(rctx, m.User, time.Now()); err != nil {
		log.Warn("give back the turn count of a message not queued", "err", err)
	}
}

// textLimited is the card of a message refused by a limit: which, and when
// it resets.
func textLimited(key, what string, reset time.Time) string {
	return fmt.Sprintf("⛔ You reached your limit of %s (limits.%s). It resets at %s; nothing was queued.",
		what, key, reset.UTC().Format("2006-01-02 15:04 UTC"))
}

func dayEnd(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// countTokens adds what q's turn used to its user's day, and to the
// metrics.
func (r *turnRunner) countTokens(ctx context.Context, log *slog.Logger, q queued, used acpbridge.Tokens) {
	if used == (acpbridge.Tokens{}) {
		return
	}
	for kind, n := range map[string]int64{"input": used.Input, "cached_input": used.CachedInput, "output": used.Output, "reasoning": used.Reasoning} {
		if n > 0 {
			r.cfg.Observer.Tokens(kind, n)
		}
	}
	if r.limits == nil || used.Total <= 0 {
		return
	}
	if err := r.limits.AddTokens(ctx, q.User, time.Now(), used.Total); err != nil {
		log.Warn("count the tokens of a turn", "tokens", used.Total, "err", err)
	}
}
