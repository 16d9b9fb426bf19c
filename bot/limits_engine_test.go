package bot_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

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
	a := startAuditReplica(t, "replica-a", h, st, cfg, nil, true)
	b := startAuditReplica(t, "replica-b", h, st, cfg, nil, false)
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
}

// The token limit counts what the scripted model reports, exactly: two
// turns of 1 500 tokens pass a limit of 2 000 (the second starts at 1 500),
// the third is refused, and the day's count is 3 000.
func TestTokenLimitCountsTheModelsUsage(t *testing.T) {
	h := codextest.Start(t, answers(2, sm.Usage{InputTokens: 1400, CachedInputTokens: 400, OutputTokens: 100}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "limits"))
	cfg := bot.Config{Access: bot.Access{AllowUsers: []string{"alice"}}, Limits: bot.Limits{TokensPerDay: 2000}}
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
	if n, err := limits.TokensUsed(t.Context(), "alice", after); err != nil || n != 3000 {
		t.Errorf("alice used %d tokens (%v), want 3000", n, err)
	}
}
