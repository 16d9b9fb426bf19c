package bot_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// cardChat is memChat whose final snapshot is the whole stream frame the
// card renders (progress section with its notices, then the body), so a
// test sees the lines an attachment's problem put on the card. With
// requeue set its turns are Requeuers, as the WeCom channels' are.
type cardChat struct {
	*memChat
	requeue bool
}

func newCardChat(name string) *cardChat { return &cardChat{memChat: newMemChat(name)} }

func (c *cardChat) Present(t bot.Turn) bot.Presentation {
	c.record("present %s: %s", t.Conversation, t.Text)
	if c.requeue {
		return bot.Present(&requeueTurn{cardTurn: cardTurn{c: c.memChat}})
	}
	return bot.Present(&cardTurn{c: c.memChat})
}

type cardTurn struct{ c *memChat }

func (p *cardTurn) Render(c *cards.Card) string {
	if p.c.rendered != nil {
		p.c.rendered(c)
	}
	return c.Stream(0, 0).Content + " | " + c.Status().String()
}
func (p *cardTurn) Show(_ context.Context, s string, final bool) {
	if final {
		p.c.record("final %s", s)
	}
}
func (p *cardTurn) Finish(context.Context, *cards.Card) { p.c.record("finish") }

// requeueTurn hands its reply back to waiting when the engine's shutdown
// cuts the turn short.
type requeueTurn struct {
	cardTurn
	requeued bool
}

func (p *requeueTurn) Requeue(text string) {
	p.requeued = true
	p.c.record("requeued: %s", text)
}
func (p *requeueTurn) Requeued() bool { return p.requeued }

// mediaRig is an engine on the real Codex (driven by the scripted model) and
// the real Redis, with one cardChat channel.
type mediaRig struct {
	h     *codextest.Harness
	st    *testenv.Stores
	agent acpbridge.Agent
	chat  *cardChat
	root  string
}

func newMediaRig(t *testing.T, script sm.Script) *mediaRig {
	t.Helper()
	h := codextest.Start(t, script)
	st := testenv.OpenStores(t, testenv.Prefix(t, "botmedia"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	t.Cleanup(func() { _ = agent.Close() })
	return &mediaRig{h: h, st: st, agent: agent, chat: newCardChat("chat"), root: t.TempDir()}
}

// engine is a replica on the rig's store and agent working under root.
func (r *mediaRig) engine(t *testing.T, replica, root string) *bot.Engine {
	t.Helper()
	e, err := bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: replica, WorkspaceRoot: root, UpdateInterval: time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"alice"}}, Logger: quietLog(),
	}, testenv.EngineStore(r.st), r.agent, r.chat)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs e until the test ends.
func run(t *testing.T, e *bot.Engine) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// workspace is the absolute workspace of conv under root.
func workspace(t *testing.T, root, conv string) string {
	dir, err := filepath.Abs(bot.WorkspaceDir(root, conv))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func alice(id, text string, atts ...bot.Attachment) bot.Message {
	return bot.Message{ID: id, Conversation: bot.Conversation{Kind: "single", ID: "alice"}, User: "alice",
		Text: text, Attachments: atts, Channel: "chat"}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fileNames lists the names in dir, sorted.
func fileNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
