package bot_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// batchGate is the scripted model's side of the fair-share test: it holds
// every model request until as many are held as can be at once (the
// limit, or fewer when fewer conversations have work left), then lets that
// batch answer. Before open it holds everything, so a test can look at the
// engine while the first turns are busy. The server counts the requests in
// flight.
type batchGate struct {
	limit int

	mu     sync.Mutex
	cond   *sync.Cond
	opened bool
	held   int
	batch  int            // bumped when the held requests are let go
	left   map[string]int // conversation → model requests it still makes
}

func newBatchGate(limit int, left map[string]int) *batchGate {
	g := &batchGate{limit: limit, left: left}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// possible is how many requests can be held at once now.
func (g *batchGate) possible() int {
	n := 0
	for _, l := range g.left {
		if l > 0 {
			n++
		}
	}
	return min(n, g.limit)
}

func (g *batchGate) releaseIfFull() {
	if g.opened && g.held > 0 && g.held >= g.possible() {
		g.held = 0
		g.batch++
		g.cond.Broadcast()
	}
}

func (g *batchGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.opened = true
	g.releaseIfFull()
}

// next answers a request for conversation conv once its batch is let go.
func (g *batchGate) next(req *sm.Request) (sm.Response, error) {
	conv, _, _ := strings.Cut(req.UserText, " ")
	g.mu.Lock()
	if g.left[conv] <= 0 {
		g.mu.Unlock()
		return sm.Response{}, fmt.Errorf("unexpected model request %q", req.UserText)
	}
	g.left[conv]--
	g.held++
	mine := g.batch
	g.releaseIfFull()
	for g.batch == mine {
		g.cond.Wait()
	}
	g.mu.Unlock()
	return sm.Reply(sm.Message("final_answer", "answer to: "+req.UserText)), nil
}

// Fair share: 40 users at once on one replica that runs 4 turns at once
// (agent.max_concurrent_turns). Never more than 4 model requests are in
// flight; the turns beyond the limit wait, their cards saying so with their
// place; every message is answered once, in order within its conversation.
// No clock decides anything: the model answers in batches of what can run
// at once, and the first batch waits until every other conversation's turn
// shows it is waiting.
func TestFairShareFortyUsersFourTurnsAtOnce(t *testing.T) {
	const users, perUser, limit = 40, 2, 4
	left := map[string]int{}
	for u := range users {
		left[fmt.Sprintf("u%02d", u)] = perUser
	}
	gate := newBatchGate(limit, left)
	h := codextest.Start(t, sm.ScriptFunc(gate.next))
	t.Cleanup(gate.open) // a failing test must not leave requests held
	st := testenv.OpenStores(t, testenv.Prefix(t, "fairshare"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	t.Cleanup(func() { _ = agent.Close() })
	chat := newMemChat("chat")
	e, err := bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "r1", WorkspaceRoot: t.TempDir(), UpdateInterval: time.Millisecond,
		PollInterval: 20 * time.Millisecond, MaxConcurrentTurns: limit,
		Access: bot.Access{AllowUsers: []string{"*"}}, Logger: quietLog(),
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)

	var wg sync.WaitGroup
	for u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("u%02d", u)
			for m := 1; m <= perUser; m++ {
				msg := bot.Message{ID: fmt.Sprintf("%s-m%d", user, m), Conversation: bot.Conversation{Kind: "single", ID: user},
					User: user, Text: fmt.Sprintf("%s m%d", user, m), Channel: "chat"}
				if _, err := e.Receive(context.Background(), msg); err != nil {
					t.Errorf("receive %s: %v", msg.ID, err)
				}
			}
		}()
	}
	wg.Wait()

	// The first 4 turns hold the slots (their model requests are held); the
	// other 36 conversations' first turns wait in line, each card saying so.
	waitingShown := func(events []string) map[string]bool {
		convs := map[string]bool{}
		for _, ev := range events {
			if conv, ok := strings.CutPrefix(ev, "show 1 "); ok && strings.Contains(ev, ": ⏳ Waiting for a free turn (position ") &&
				strings.HasSuffix(ev, "): this server runs 4 turns at once.") {
				convs[conv[:strings.Index(conv, ": ")]] = true
			}
		}
		return convs
	}
	guard := time.After(5 * time.Minute) // a hang guard, not a speed limit
	for {
		events, changed := chat.state()
		if len(waitingShown(events)) >= users-limit {
			break
		}
		select {
		case <-changed:
		case <-guard:
			t.Fatalf("%d conversations showed they wait for a turn, want %d; events:\n%s",
				len(waitingShown(events)), users-limit, strings.Join(events, "\n"))
		}
	}
	gate.open()

	finals := func(events []string) int {
		n := 0
		for _, ev := range events {
			if strings.HasPrefix(ev, "final ") {
				n++
			}
		}
		return n
	}
	for {
		events, changed := chat.state()
		if finals(events) >= users*perUser {
			break
		}
		select {
		case <-changed:
		case <-guard:
			t.Fatalf("%d answers, want %d", finals(events), users*perUser)
		}
	}
	if n := h.Server.MaxInFlight(); n > limit || n < 1 {
		t.Fatalf("at most %d model requests were in flight at once, want 1 to %d", n, limit)
	}
	events, _ := chat.state()
	for u := range users {
		user := fmt.Sprintf("u%02d", u)
		var presents, answers []string
		for _, ev := range events {
			if p, ok := strings.CutPrefix(ev, "present single:"+user+": "); ok {
				presents = append(presents, p)
			}
			if a, ok := strings.CutPrefix(ev, "final answer to: "+user+" "); ok {
				answers = append(answers, a)
			}
		}
		want := []string{user + " m1", user + " m2"}
		if !slices.Equal(presents, want) {
			t.Errorf("%s: turns %q, want %q once each, in order", user, presents, want)
		}
		if !slices.Equal(answers, []string{"m1 | done", "m2 | done"}) {
			t.Errorf("%s: answers %q, want m1 then m2, once each", user, answers)
		}
	}
	if err := h.Server.Err(); err != nil {
		t.Fatal(err)
	}
}

// state is what the chat showed so far, and a channel closed at its next
// event.
func (c *memChat) state() ([]string, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events), c.changed
}
