package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

// RateLimitWindow is one window of the agent's account rate limits, as
// /usage shows it.
type RateLimitWindow struct {
	Limit, Which string
	UsedPercent  int
	Window       time.Duration
	ResetsAt     time.Time // zero: the agent did not say
}

// UsageConfig is what /usage needs besides the store: the account's rate
// limits (Codex's account/rateLimits/read); nil when the agent has none.
type UsageConfig struct {
	RateLimits func(ctx context.Context) ([]RateLimitWindow, error)
}

// UsageStore keeps what each conversation's session used, by kind of
// token (acpbridge.Tokens' JSON names), for /usage on any replica. The
// store's Conversations part implements it; one that does not leaves
// /usage without the session's tokens.
type UsageStore interface {
	SaveSessionUsage(ctx context.Context, conv, session string, tokens map[string]int64) error
	SessionUsage(ctx context.Context, conv string) (session string, tokens map[string]int64, err error)
}

func runUsage(ctx context.Context, in *intake, _ Channel, m Message, _ string) (string, error) {
	return in.usage(ctx, m)
}

// usage answers /usage: the session's tokens, the account's rate limits
// and what is left of the user's limits.
func (in *intake) usage(ctx context.Context, m Message) (string, error) {
	conv := m.Conversation.Key()
	var b strings.Builder
	b.WriteString("**Usage**\n")
	session, _, err := in.store.Conversation(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/usage in %s: %w", conv, err)
	}
	var of string
	var t map[string]int64
	if in.usageStore != nil {
		if of, t, err = in.usageStore.SessionUsage(ctx, conv); err != nil {
			return "", fmt.Errorf("/usage in %s: %w", conv, err)
		}
	}
	if session != "" && of == session {
		fmt.Fprintf(&b, "- this session: %s\n", tokensLine(t["input"], t["cached_input"], t["output"], t["reasoning"], t["total"]))
	} else {
		b.WriteString("- this session: no tokens used yet\n")
	}
	b.WriteString(in.rateLimitLines(ctx))
	b.WriteString(in.limitsLeft(ctx, m))
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// windowLength says how long a rate-limit window is, in its largest whole
// unit: "5-hour", "7-day".
func windowLength(d time.Duration) string {
	switch day := 24 * time.Hour; {
	case d%day == 0:
		return fmt.Sprintf("%d-day", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("%d-hour", d/time.Hour)
	}
	return fmt.Sprintf("%d-minute", d/time.Minute)
}

func (in *intake) rateLimitLines(ctx context.Context) string {
	if in.cfg.Usage.RateLimits == nil {
		return "- account rate limits: this agent reports none\n"
	}
	ws, err := in.cfg.Usage.RateLimits(ctx)
	if err != nil {
		in.log.Info("rate limits not read", "err", err)
		return "- account rate limits: Codex reports none for this account\n"
	}
	if len(ws) == 0 {
		return "- account rate limits: Codex reports none for this account\n"
	}
	var b strings.Builder
	for _, w := range ws {
		name := strings.TrimSpace(w.Limit + " " + w.Which)
		fmt.Fprintf(&b, "- rate limit %s: %d%% used", name, w.UsedPercent)
		if w.Window > 0 {
			fmt.Fprintf(&b, " of its %s window", windowLength(w.Window))
		}
		if !w.ResetsAt.IsZero() {
			fmt.Fprintf(&b, ", resets %s", w.ResetsAt.UTC().Format("2006-01-02 15:04 UTC"))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// limitsLeft are the lines of what m's user has left of limits.*.
func (in *intake) limitsLeft(ctx context.Context, m Message) string {
	lim := in.limitsFor(ctx, in.log, m)
	switch {
	case lim.TurnsPerHour <= 0 && lim.TokensPerDay <= 0:
		return "- your limits: none set\n"
	case in.cfg.Access.IsAdmin(m.User):
		return "- your limits: none (admins are not limited)\n"
	case in.limits == nil:
		return "- your limits: not counted here\n"
	}
	now := time.Now()
	var b strings.Builder
	if lim.TurnsPerHour > 0 {
		if n, reset, err := in.limits.TurnsUsed(ctx, m.User, now); err != nil {
			b.WriteString("- turns this hour: not readable now\n")
		} else {
			fmt.Fprintf(&b, "- turns this hour: %d of %d left (limits.%s), until %s\n",
				max(0, lim.TurnsPerHour-n), lim.TurnsPerHour, LimitTurns, reset.UTC().Format("15:04 UTC"))
		}
	}
	if lim.TokensPerDay > 0 {
		if n, err := in.limits.TokensUsed(ctx, m.User, now); err != nil {
			b.WriteString("- tokens today: not readable now\n")
		} else {
			fmt.Fprintf(&b, "- tokens today: %d of %d left (limits.%s), until %s\n",
				max(0, lim.TokensPerDay-n), lim.TokensPerDay, LimitTokens, dayEnd(now).Format("2006-01-02 15:04 UTC"))
		}
	}
	return b.String()
}

func tokensLine(input, cached, output, reasoning, total int64) string {
	return fmt.Sprintf("%d tokens (input %d, cached %d, output %d, reasoning %d)", total, input, cached, output, reasoning)
}

// footer gives the finished card the line of its turn's tokens, with
// cards.usage_footer.
func (r *turnRunner) footer(pub *cards.Publisher[frame], ta *turnAudit) {
	if !r.cfg.UsageFooter {
		return
	}
	used, ok := ta.tokens()
	if !ok {
		return
	}
	line := "🔢 This turn: " + tokensLine(used.Input, used.CachedInput, used.Output, used.Reasoning, used.Total)
	pub.Do(func(c *cards.Card) { c.SetFooter(line) })
}

// recordUsage keeps the session's totals after q's turn, for /usage on any
// replica.
func (r *turnRunner) recordUsage(ctx context.Context, log *slog.Logger, q queued, ta *turnAudit) {
	total, ok := ta.sessionTotal()
	if !ok || r.usage == nil {
		return
	}
	session, _, err := r.store.Conversation(ctx, q.Conversation)
	if err != nil || session == "" {
		log.Warn("session usage not recorded", "err", err)
		return
	}
	t := map[string]int64{"input": total.Input, "cached_input": total.CachedInput, "output": total.Output,
		"reasoning": total.Reasoning, "total": total.Total}
	if err := r.usage.SaveSessionUsage(ctx, q.Conversation, session, t); err != nil {
		log.Warn("session usage not recorded", "err", err)
	}
}

// sessionTotal is the thread's total at the turn's last usage update.
func (t *turnAudit) sessionTotal() (acpbridge.Tokens, bool) {
	if t == nil {
		return acpbridge.Tokens{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		return acpbridge.Tokens{}, false
	}
	return t.last.Total, true
}
