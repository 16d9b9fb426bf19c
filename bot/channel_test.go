package bot_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

var _ testenv.EngineParts = (*testenv.Stores)(nil)

// memChat is the smallest Channel: it keeps what the engine showed in
// memory, in order. It proves a channel needs nothing of the scheduler or the
// turn runner: the engine's tests run on it alone.
type memChat struct {
	name string

	mu      sync.Mutex
	events  []string
	changed chan struct{} // closed and replaced on every event

	// rendered, when set, sees every card a turn renders (before the
	// throttle decides what is shown), so a test can wait for what the
	// card holds rather than for an event's timing.
	rendered func(*cards.Card)
}

func newMemChat(name string) *memChat { return &memChat{name: name, changed: make(chan struct{})} }

func (c *memChat) record(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, fmt.Sprintf(format, args...))
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitFor returns the events once one equals last.
func (c *memChat) waitFor(t *testing.T, last string) []string {
	t.Helper()
	timeout := time.After(time.Minute) // a hang guard, not a speed limit
	for {
		c.mu.Lock()
		got, changed := slices.Clone(c.events), c.changed
		c.mu.Unlock()
		if slices.Contains(got, last) {
			return got
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("channel %s never showed %q; it showed %q", c.name, last, got)
		}
	}
}

func (c *memChat) Name() string                { return c.name }
func (c *memChat) CardOptions() []cards.Option { return nil }

func (c *memChat) Show(_ context.Context, r bot.Reply) (bool, error) {
	c.record("show %d %s: %s", r.State, r.Conversation, r.Text)
	return true, nil
}

func (c *memChat) Present(t bot.Turn) bot.Presentation {
	c.record("present %s: %s", t.Conversation, t.Text)
	return bot.Present(&memTurn{c: c})
}

type memTurn struct{ c *memChat }

// Render keeps the body and status: the throttled snapshots in between
// depend on timing, the last one does not.
func (p *memTurn) Render(c *cards.Card) string {
	if p.c.rendered != nil {
		p.c.rendered(c)
	}
	return c.Body() + " | " + c.Status().String()
}

func (p *memTurn) Show(_ context.Context, s string, final bool) {
	if final {
		p.c.record("final %s", s)
	}
}

func (p *memTurn) Finish(context.Context, *cards.Card) { p.c.record("finish") }

// echoAgent answers every prompt with "answer to: <text>".
type echoAgent struct{ next int }

func (a *echoAgent) NewSession(context.Context, string) (acp.SessionId, error) {
	a.next++
	return acp.SessionId(fmt.Sprint("s", a.next)), nil
}
func (a *echoAgent) LoadSession(context.Context, acp.SessionId, string, acpbridge.Sink) error {
	return acpbridge.ErrLoadUnsupported
}
func (a *echoAgent) Prompt(_ context.Context, _ acp.SessionId, p acpbridge.Prompt, sink acpbridge.Sink) (acp.StopReason, error) {
	text := p.Text
	sink.Update(acp.UpdateAgentMessageText("answer to: " + text))
	return acp.StopReasonEndTurn, nil
}
func (a *echoAgent) Cancel(context.Context, acp.SessionId) error { return nil }
func (a *echoAgent) Close() error                                { return nil }

// A message is presented on the channel it came from, though it waited in
// the shared queue: the queued item records its channel.
func TestTurnIsPresentedOnItsChannel(t *testing.T) {
	st := testenv.OpenStores(t, testenv.Prefix(t, "botchan"))
	a, b := newMemChat("a"), newMemChat("b")
	e, err := bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "r1", WorkspaceRoot: t.TempDir(), UpdateInterval: time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"alice"}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, testenv.EngineStore(st), &echoAgent{}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Channels(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Channels() = %q", got)
	}
	// Received before Run: the message waits in the store, not in memory.
	rc, err := e.Receive(t.Context(), bot.Message{ID: "m1", Conversation: bot.Conversation{Kind: "single", ID: "alice"}, User: "alice",
		Text: "hello", Channel: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Reply.State != bot.ReplyWaiting || rc.Reply.Text != "⏳ Thinking…" || rc.Reply.To.Stream == "" || rc.Current {
		t.Fatalf("receipt %+v", rc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	defer func() { cancel(); <-done }()

	got := b.waitFor(t, "finish")
	want := []string{
		"show 1 single:alice: ⏳ Thinking…",
		"present single:alice: hello",
		"final answer to: hello | done",
		"finish",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("channel b showed\n%q\nwant\n%q", got, want)
	}
	if a.events != nil {
		t.Fatalf("channel a showed %q; the message came on b", a.events)
	}

	// A command is answered on the channel, finished, and runs no turn.
	rc, err = e.Receive(t.Context(), bot.Message{ID: "m2", Conversation: bot.Conversation{Kind: "single", ID: "alice"}, User: "alice",
		Text: "/more", Channel: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Reply.State != bot.ReplyFinished || rc.Reply.Text != bot.TextNoMore {
		t.Fatalf("/more on a channel without continuation: %+v", rc.Reply)
	}
	if _, err := e.Receive(t.Context(), bot.Message{ID: "m3", Conversation: bot.Conversation{Kind: "single", ID: "alice"}, User: "alice",
		Text: "x", Channel: "nope"}); err == nil {
		t.Fatal("a message on an unregistered channel was accepted")
	}
}
