package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/echoagent"
	"github.com/wecodex/wecodex/store"
)

// printChannel is a whole Channel: it prints short replies and each turn's
// final card, and says when a turn is finished.
type printChannel struct{ finished chan struct{} }

func (c printChannel) Name() string                { return "print" }
func (c printChannel) CardOptions() []cards.Option { return nil }
func (c printChannel) Show(_ context.Context, r bot.Reply) (bool, error) {
	fmt.Println("reply:", r.Text)
	return true, nil
}
func (c printChannel) Present(bot.Turn) bot.Presentation { return bot.Present(printTurn(c)) }

// printTurn is the channel's Presenter: its snapshots are strings, and it is
// a Finisher too.
type printTurn printChannel

func (p printTurn) Render(c *cards.Card) string {
	return c.Body() + " (" + c.Status().String() + ")"
}
func (p printTurn) Show(_ context.Context, s string, final bool) {
	if final {
		fmt.Println("card:", s)
	}
}
func (p printTurn) Finish(context.Context, *cards.Card) { close(p.finished) }

// The engine with one channel: the channel hands a message to Receive, and
// the engine presents the turn back on that channel once Run takes it.
func ExampleEngine() {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	db, err := store.Open(ctx, store.Options{}, log) // embedded Redis
	if err != nil {
		panic(err)
	}
	defer db.Close()
	st := bot.Store{
		Dedupe: store.NewDedupe(db), Queue: store.NewQueue(db), Replicas: store.NewReplicas(db),
		Conversations: store.NewConversations(db), Attachments: store.NewAttachments(db),
		Approvals: store.NewApprovals(db),
	}
	root, err := os.MkdirTemp("", "wecodex-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)

	ch := printChannel{finished: make(chan struct{})}
	e, err := bot.New(bot.Config{
		Replica: "example", LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		WorkspaceRoot: root,
		Access:        bot.Access{AllowUsers: []string{"alice"}},
		Logger:        log,
	}, st, &echoagent.Agent{}, ch)
	if err != nil {
		panic(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.Run(runCtx) }()

	if _, err := e.Receive(ctx, bot.Message{ID: "m1", Conversation: bot.Conversation{Kind: "single", ID: "alice"}, User: "alice",
		Text: "why is the sky blue?", Channel: ch.Name()}); err != nil {
		panic(err)
	}
	<-ch.finished
	stop()
	<-done
	// Output:
	// reply: ⏳ Thinking…
	// card: answer to: why is the sky blue? (done)
}
