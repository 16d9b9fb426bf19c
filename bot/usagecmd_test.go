package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
)

// /usage on a second replica shows the session's tokens exactly as the
// scripted model reported them over two turns, the account's rate-limit
// windows with their resets as Codex read them from ChatGPT's backend, and
// what is left of the user's limits; with cards.usage_footer each finished card ends with its own turn's tokens.
// No /usage reaches the model.
func TestUsageCommandAndFooter(t *testing.T) {
	h := codextest.Start(t, answers(2, sm.Usage{InputTokens: 1400, CachedInputTokens: 400, OutputTokens: 100}))
	h.LogInChatGPT(t) // so Codex has rate limits to report (codextest.ChatGPTUsage)
	st := testenv.OpenStores(t, testenv.Prefix(t, "usage"))
	limits := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Logger: quietLog()})
	t.Cleanup(func() { _ = limits.Close() })
	cfg := bot.Config{Access: bot.Access{AllowUsers: []string{"alice"}, Admins: []string{"carol"}},
		Limits: bot.Limits{TurnsPerHour: 5, TokensPerDay: 10000}, UsageFooter: true}
	cfg.Usage.RateLimits = rateLimitsOf(limits)
	a := startAuditReplica(t, "replica-a", h, st, cfg, nil, true)
	b := startAuditReplica(t, "replica-b", h, st, cfg, nil, false)
	room := chattest.Room("u1")
	say := func(r *auditReplica, id, user, text string) string {
		t.Helper()
		rc, err := r.e.Receive(t.Context(), chattest.Message(id, room, user, text))
		if err != nil {
			t.Fatal(err)
		}
		return rc.Reply.Text
	}
	if got := say(b, "q0", "alice", "/usage"); !strings.HasPrefix(got, "**Usage**\n- this session: no tokens used yet\n") {
		t.Errorf("/usage before any turn = %q", got)
	}
	say(a, "t1", "alice", "one")
	a.chat.WaitForCount(t, room, "finish", 1)
	say(a, "t2", "alice", "two")
	a.chat.WaitForCount(t, room, "finish", 2)

	before := time.Now()
	got := say(b, "q1", "alice", "/usage")
	after := time.Now()
	var wants []string
	for _, at := range []time.Time{before, after} {
		day := time.Date(at.UTC().Year(), at.UTC().Month(), at.UTC().Day()+1, 0, 0, 0, 0, time.UTC)
		wants = append(wants, "**Usage**\n"+
			"- this session: 3000 tokens (input 2800, cached 800, output 200, reasoning 0)\n"+
			"- rate limit codex primary: 42% used of its 5-hour window, resets 2026-12-02 13:00 UTC\n"+
			"- rate limit codex secondary: 7% used of its 7-day window, resets 2026-12-08 13:00 UTC\n"+
			fmt.Sprintf("- turns this hour: 3 of 5 left (limits.turns_per_user_per_hour), until %s\n", hourEnd(at).Format("15:04 UTC"))+
			fmt.Sprintf("- tokens today: 7000 of 10000 left (limits.tokens_per_user_per_day), until %s", day.Format("2006-01-02 15:04 UTC")))
	}
	if got != wants[0] && got != wants[1] {
		t.Errorf("/usage =\n%s\nwant\n%s", got, wants[1])
	}
	if got, want := say(b, "q2", "carol", "/usage"), "- your limits: none (admins are not limited)"; !strings.HasSuffix(got, want) {
		t.Errorf("carol's /usage = %q, want it to end %q", got, want)
	}
	var cards []string
	for _, l := range a.chat.Events(room) {
		if strings.HasPrefix(l, "card: ") {
			cards = append(cards, l)
		}
	}
	footer := " | footer: 🔢 This turn: 1500 tokens (input 1400, cached 400, output 100, reasoning 0)"
	if want := []string{"card: one | [] | Answer 1. | done" + footer, "card: two | [] | Answer 2. | done" + footer}; strings.Join(cards, "\n") != strings.Join(want, "\n") {
		t.Errorf("cards =\n%q\nwant\n%q", cards, want)
	}
	if n := len(h.Server.ModelRequests()); n != 2 {
		t.Errorf("model requests: %d, want 2 (no /usage reaches the model)", n)
	}
}

// rateLimitsOf is /usage's rate limits from a Codex agent, as serve wires
// them.
func rateLimitsOf(a *codex.Agent) func(ctx context.Context) ([]bot.RateLimitWindow, error) {
	return func(ctx context.Context) ([]bot.RateLimitWindow, error) {
		ws, err := a.RateLimits(ctx)
		var out []bot.RateLimitWindow
		for _, w := range ws {
			out = append(out, bot.RateLimitWindow{Limit: w.Limit, Which: w.Which, UsedPercent: w.UsedPercent, Window: w.Window, ResetsAt: w.ResetsAt})
		}
		return out, err
	}
}
