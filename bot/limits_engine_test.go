package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/metrics"
	"github.com/wecodex/wecodex/store"
)

// withMetrics gives cfg a Prometheus registry of its own, as serve's
// /metrics: a replica's counters are its own.
func withMetrics(t *testing.T, cfg bot.Config) (bot.Config, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Observer = m
	return cfg, reg
}

// checkMetrics compares reg's series of the named metrics with want, the
// text /metrics serves (without HELP and TYPE lines).
func checkMetrics(t *testing.T, reg *prometheus.Registry, want string, names ...string) {
	t.Helper()
	help := map[string]string{
		"wecodex_tokens_total":  "# HELP wecodex_tokens_total Model tokens the turns run on this replica used, by kind (input, cached_input, output, reasoning).\n# TYPE wecodex_tokens_total counter\n",
		"wecodex_limited_total": "# HELP wecodex_limited_total Messages refused because their user reached a limit, by limit (limits.* key).\n# TYPE wecodex_limited_total counter\n",
	}
	var text strings.Builder
	for _, n := range names {
		text.WriteString(help[n])
		for _, l := range strings.Split(want, "\n") {
			if strings.HasPrefix(l, n+"{") {
				text.WriteString(l + "\n")
			}
		}
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(text.String()), names...); err != nil {
		t.Error(err)
	}
}

// answers is a script of n turns, each answering "Answer i." and reporting
// usage u.
func answers(n int, u sm.Usage) sm.Script {
	var rs []sm.Response
	for i := 1; i <= n; i++ {
		rs = append(rs, sm.Reply(sm.Message(sm.PhaseFinalAnswer, fmt.Sprintf("Answer %d.", i))).WithUsage(u))
	}
	return sm.Sequence(rs...)
}

// runTurn has user send text in a room of its own (id) on r and waits for
// its card: limits count per user, whatever the conversation.
func runTurn(t *testing.T, r *auditReplica, id, user, text string) {
	t.Helper()
	conv := chattest.Room(id)
	if _, err := r.e.Receive(t.Context(), chattest.Message(id, conv, user, text)); err != nil {
		t.Fatal(err)
	}
	r.chat.WaitFor(t, conv, "finish")
}

// limitedLines are the cards a refused message may show: the limit's reset
// is computed before and after the refusal, since the test may straddle
// the end of an hour (or a day).
func limitedLines(what, key string, before, after time.Time) []string {
	var out []string
	for _, at := range []time.Time{before, after} {
		out = append(out, "reply finished: ⛔ You reached your limit of "+what+" (limits."+key+"). It resets at "+
			at.UTC().Format("2006-01-02 15:04 UTC")+"; nothing was queued.")
	}
	return out
}

func hourEnd(t time.Time) time.Time { return t.UTC().Truncate(time.Hour).Add(time.Hour) }

// A user limited to 2 turns an hour has two turns on replica a; the third,
// received by replica b, is refused there with the limit and its reset on
// the card, and nothing is queued. An admin is not limited.
func TestTurnLimitHoldsAcrossReplicas(t *testing.T) {
	h := codextest.Start(t, answers(5, sm.Usage{}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "limits"))
	cfg := bot.Config{Access: bot.Access{AllowUsers: []string{"alice"}, Admins: []string{"carol"}},
		Limits: bot.Limits{TurnsPerHour: 2}}
	cfgA, regA := withMetrics(t, cfg)
	cfgB, regB := withMetrics(t, cfg)
	a := startAuditReplica(t, "replica-a", h, st, cfgA, nil, true)
	b := startAuditReplica(t, "replica-b", h, st, cfgB, nil, false)
	runTurn(t, a, "a1", "alice", "one")
	runTurn(t, a, "a2", "alice", "two")
	alice := chattest.Room("a3")

	before := time.Now()
	if _, err := b.e.Receive(t.Context(), chattest.Message("a3", alice, "alice", "three")); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got := b.chat.Events(alice)
	if want := limitedLines("2 turns per hour", "turns_per_user_per_hour", hourEnd(before), hourEnd(after)); len(got) != 1 || !slices.Contains(want, got[0]) {
		t.Errorf("the third message's reply showed %q, want one of %q", got, want)
	}
	if q, err := st.Queued(t.Context(), alice.Key()); err != nil || len(q) != 0 {
		t.Errorf("queued after the refusal: %d (%v), want nothing", len(q), err)
	}
	waitForRecord(t, st, "refused")
	var refused []string
	for _, r := range records(t, st) {
		if r.Kind == "refused" {
			refused = append(refused, r.User+" "+r.MsgID+" "+r.Reason+" "+r.Replica)
		}
	}
	if want := []string{"alice a3 turns_per_user_per_hour replica-b"}; !slices.Equal(refused, want) {
		t.Errorf("refused records %q, want %q", refused, want)
	}

	for _, id := range []string{"c1", "c2", "c3"} {
		runTurn(t, a, id, "carol", "turn "+id)
	}
	// wecodex_limited_total counts the refusal on the replica that made it.
	checkMetrics(t, regB, "wecodex_limited_total{limit=\"tokens_per_user_per_day\"} 0\nwecodex_limited_total{limit=\"turns_per_user_per_hour\"} 1", "wecodex_limited_total")
	checkMetrics(t, regA, "wecodex_limited_total{limit=\"tokens_per_user_per_day\"} 0\nwecodex_limited_total{limit=\"turns_per_user_per_hour\"} 0", "wecodex_limited_total")
}

// The token limit counts what the scripted model reports, exactly: two
// turns of 1 500 tokens pass a limit of 2 000 (the second starts at 1 500),
// the third is refused, and the day's count is 3 000.
func TestTokenLimitCountsTheModelsUsage(t *testing.T) {
	h := codextest.Start(t, answers(2, sm.Usage{InputTokens: 1400, CachedInputTokens: 400, OutputTokens: 100}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "limits"))
	cfg, reg := withMetrics(t, bot.Config{Access: bot.Access{AllowUsers: []string{"alice"}}, Limits: bot.Limits{TokensPerDay: 2000}})
	a := startAuditReplica(t, "replica-a", h, st, cfg, nil, true)
	runTurn(t, a, "a1", "alice", "one")
	limits := store.NewLimits(st.DB)
	if n, err := limits.TokensUsed(t.Context(), "alice", time.Now()); err != nil || n != 1500 {
		t.Fatalf("after one turn alice used %d tokens (%v), want 1500", n, err)
	}
	runTurn(t, a, "a2", "alice", "two")

	alice := chattest.Room("a3")
	before := time.Now()
	if _, err := a.e.Receive(t.Context(), chattest.Message("a3", alice, "alice", "three")); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	day := func(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour) }
	got := a.chat.Events(alice)
	if want := limitedLines("2000 tokens per day", "tokens_per_user_per_day", day(before), day(after)); len(got) != 1 || !slices.Contains(want, got[0]) {
		t.Errorf("the third message's reply showed %q, want one of %q", got, want)
	}
	if q, err := st.Queued(t.Context(), alice.Key()); err != nil || len(q) != 0 {
		t.Errorf("queued after the refusal: %d (%v), want nothing", len(q), err)
	}
	if n, err := limits.TokensUsed(t.Context(), "alice", after); err != nil || n != 3000 {
		t.Errorf("alice used %d tokens (%v), want 3000", n, err)
	}
	// wecodex_tokens_total counts the same usage by kind (no reasoning
	// reported, so none counted), wecodex_limited_total the refusal.
	checkMetrics(t, reg, `wecodex_tokens_total{kind="cached_input"} 800
wecodex_tokens_total{kind="input"} 2800
wecodex_tokens_total{kind="output"} 200
wecodex_limited_total{limit="tokens_per_user_per_day"} 1
wecodex_limited_total{limit="turns_per_user_per_hour"} 0`, "wecodex_limited_total", "wecodex_tokens_total")
}
