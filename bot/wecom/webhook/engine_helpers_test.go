package webhook_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

var _ fullStore = (*testenv.Stores)(nil)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// deliveries records what the engine delivered after the stream.
type deliveries struct {
	mu  sync.Mutex
	got []webhook.Delivery
}

func (d *deliveries) Deliver(_ context.Context, v webhook.Delivery) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, v)
	return nil
}

func (d *deliveries) all() []webhook.Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]webhook.Delivery(nil), d.got...)
}

type replica struct {
	e     *engine
	agent *fakeAgent
	out   *deliveries
	stop  func() // stops Run and waits for it
}

func testConfig(t *testing.T, name string) bot.Config {
	return bot.Config{
		Replica:        name,
		WorkspaceRoot:  t.TempDir(),
		TurnTimeout:    time.Minute,
		UpdateInterval: 10 * time.Millisecond,
		Access:         bot.Access{AllowUsers: []string{"alice", "bob"}},
		LeaseTTL:       3 * time.Second,
		HeartbeatTTL:   3 * time.Second,
		PollInterval:   20 * time.Millisecond,
		Logger:         quiet(),
	}
}

// newReplica builds an engine on st; run starts it.
func newReplica(t *testing.T, st fullStore, cfg bot.Config) *replica {
	t.Helper()
	return newReplicaWith(t, st, cfg, webhook.Options{})
}

// newReplicaWith is newReplica with the channel's options o (the stream
// window is an hour, the logger cfg's).
func newReplicaWith(t *testing.T, st fullStore, cfg bot.Config, o webhook.Options) *replica {
	t.Helper()
	r := &replica{agent: newFakeAgent(cfg.Replica), out: &deliveries{}}
	e, err := newEngineWith(cfg, st, r.agent, r.out, o)
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	r.stop = func() {}
	return r
}

func (r *replica) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.e.Run(ctx) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(r.stop)
}

func msg(id, user, text string) bot.Message {
	return bot.Message{ID: id, Conversation: wecom.SingleChat(user), User: user, Text: text, Reply: bot.ReplyTo{URL: "https://reply/" + id}}
}

func receive(t *testing.T, e *engine, m bot.Message) webhook.Frame {
	t.Helper()
	f, err := e.Receive(context.Background(), m)
	if err != nil {
		t.Fatalf("Receive(%s): %v", m.ID, err)
	}
	return f
}

// hangGuard bounds every wait of these tests so a hung engine fails with a
// message. It is a deadline for a hang, not a speed limit: nothing here
// takes more than a small part of it even on a loaded machine.
const hangGuard = 2 * time.Minute

// eventually polls cond until it holds, failing the test with what once
// hangGuard has passed.
func eventually(t *testing.T, what func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		time.Sleep(5 * time.Millisecond) // a poll interval, not a wait for an outcome
	}
}

// waitFrame polls the store until the stream's frame satisfies ok.
func waitFrame(t *testing.T, e *engine, streamID string, what string, ok func(webhook.Frame) bool) webhook.Frame {
	t.Helper()
	var last webhook.Frame
	eventually(t, func() string { return fmt.Sprintf("stream %s never became %s; last frame: %+v", streamID, what, last) }, func() bool {
		f, _, err := webhook.FrameOf(e.ch, context.Background(), streamID)
		if err != nil {
			t.Fatal(err)
		}
		last = f
		return ok(f)
	})
	return last
}

func waitFinished(t *testing.T, e *engine, streamID string) webhook.Frame {
	t.Helper()
	return waitFrame(t, e, streamID, "finished", func(f webhook.Frame) bool { return f.Finish })
}

func waitStarted(t *testing.T, a *fakeAgent, text string) {
	t.Helper()
	select {
	case got := <-a.started:
		if got != text {
			t.Fatalf("agent started %q, want %q", got, text)
		}
	case <-time.After(hangGuard):
		t.Fatalf("agent never started %q", text)
	}
}

// card renders what the engine's card for a turn must show: the fake agent's
// updates for text (its answer only when withAnswer), then notices, then the
// status. before are notices that come before the agent's updates.
type card struct {
	before     []acpbridge.Notice
	text       string
	middle     []acpbridge.Notice // between the thought and the answer
	withAnswer bool
	after      []acpbridge.Notice
	status     cards.Status
}

func (c card) render() string {
	k := cards.New(cards.WithStreamLimit(wecom.MaxStreamContentBytes - 256))
	for _, n := range c.before {
		k.Notice(string(n.Level), n.Text)
	}
	for _, u := range thoughtOf(c.text) {
		k.Apply(u)
	}
	for _, n := range c.middle {
		k.Notice(string(n.Level), n.Text)
	}
	if c.withAnswer {
		for _, u := range answerOf(c.text) {
			k.Apply(u)
		}
	}
	for _, n := range c.after {
		k.Notice(string(n.Level), n.Text)
	}
	k.SetStatus(c.status)
	return k.Stream(0, 0).Content
}

func done() cards.Status { return cards.Status{State: cards.StateDone} }

func bodies(ds []webhook.Delivery) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Body)
	}
	return b.String()
}

func benchReplica(b *testing.B) *replica {
	// Everyone is allowed: BenchmarkReceive sends each message in its own
	// conversation, so from its own user.
	cfg := bot.Config{LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, Replica: "bench", WorkspaceRoot: b.TempDir(), Access: bot.Access{AllowUsers: []string{"*"}}, Logger: quiet()}
	r := &replica{agent: newFakeAgent("bench"), out: &deliveries{}}
	e, err := newEngine(cfg, testenv.OpenStores(b, testenv.Prefix(b, "bot")), r.agent, r.out)
	if err != nil {
		b.Fatal(err)
	}
	r.e = e
	return r
}

// fullStore is one replica's view of what the engine and the webhook
// channel need together; testenv.Stores is one.
type fullStore interface {
	testenv.EngineParts
	webhook.Store
}

// engine is the bot engine with the webhook channel registered on it, as
// cmd/wecodex wires them: Receive and Frame answer as the endpoint does.
type engine struct {
	*bot.Engine
	ch *webhook.Channel
}

func newEngine(cfg bot.Config, st fullStore, agent acpbridge.Agent, d webhook.Deliverer) (*engine, error) {
	return newEngineWith(cfg, st, agent, d, webhook.Options{})
}

func newEngineWith(cfg bot.Config, st fullStore, agent acpbridge.Agent, d webhook.Deliverer, o webhook.Options) (*engine, error) {
	o.StreamWindow, o.Logger = time.Hour, cfg.Logger
	ch, err := webhook.New(st, d, o)
	if err != nil {
		return nil, err
	}
	e, err := bot.New(cfg, testenv.EngineStore(st), agent, ch)
	if err != nil {
		return nil, err
	}
	return &engine{Engine: e, ch: ch}, nil
}

func (e *engine) Receive(ctx context.Context, m bot.Message) (webhook.Frame, error) {
	return e.ch.Receive(ctx, e.Engine, m)
}

func (e *engine) Frame(ctx context.Context, streamID string, from webhook.Asker) (webhook.Frame, bool, error) {
	return e.ch.Frame(ctx, streamID, from)
}

func (e *engine) Hold(ctx context.Context, m bot.Message, text string) (webhook.Frame, bool, error) {
	return e.ch.Hold(ctx, m, text)
}

func (e *engine) Settle(ctx context.Context, m bot.Message, text string) error {
	return e.ch.Settle(ctx, m, text)
}
