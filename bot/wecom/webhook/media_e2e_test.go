package webhook_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// TestEnginePictureOverWebhook: the whole stack with the real Codex
// (scripted model) on real Redis. A group's mixed message (@mention, text
// and a picture) quoting an earlier message is answered at once, its picture
// fetched from WeCom's media server and decrypted with the bot's
// EncodingAESKey; Codex's request holds exactly that picture's bytes, the
// text without the mention and the quote, and the stream ends with the
// answer.
func TestEnginePictureOverWebhook(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("final_answer", "The red cell is the failing test."),
	)))
	st := testenv.OpenStores(t, testenv.Prefix(t, "media-e2e"))
	log := slog.New(slog.DiscardHandler)
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log})
	t.Cleanup(func() { _ = agent.Close() })
	ch, err := webhook.New(st, &webhook.ResponseURLDeliverer{Hosts: loopbackHosts(t)}, webhook.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "A", WorkspaceRoot: t.TempDir(), TurnTimeout: time.Minute, UpdateInterval: 10 * time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"wrkChat1"}}, Logger: log,
	}, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = eng.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	w := serveWithMedia(t, ch.Streams(eng), wecom.Fetcher{}, log)
	pic := codextest.Picture(t, 33)
	l := w.link(t, wecomtest.MediaFile{Data: pic})

	stream, err := w.sim.Send(ctx, wecomtest.Message{MsgID: "mx-e2e", From: "alice", ChatID: "wrkChat1", MsgType: "mixed",
		Items: []wecomtest.Item{{Text: "@wecodex why is this red?"}, {ImageURL: l.URL}},
		Quote: &wecomtest.Quote{Text: "CI is red on main"}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, hangGuard)
	defer wcancel()
	final, err := w.sim.Follow(wctx, stream.ID, 20*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !final.Finish || !strings.Contains(final.Content, "The red cell is the failing test.") {
		t.Fatalf("final frame %+v: want the answer, finished", final)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 {
		t.Fatalf("model requests = %d, want 1", len(reqs))
	}
	imgs, text := reqs[0].UserImages, reqs[0].UserText
	if len(imgs) != 1 || imgs[0].MIME != "image/png" || !bytes.Equal(imgs[0].Data, pic) {
		t.Fatalf("the model got %d pictures (%+v); want exactly the sent one", len(imgs), imgs)
	}
	if !strings.HasPrefix(text, "From: alice\n\nQuoted message:\n> CI is red on main\n\nwhy is this red?") || strings.Contains(text, "@wecodex") {
		t.Fatalf("the model read %q; want the sender, the quote, then the text without the mention", text)
	}
}
