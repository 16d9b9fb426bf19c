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
	"github.com/wecodex/wecodex/cards"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// e2eHook is the webhook channel over the real Codex (scripted model) and
// real Redis, played by the simulator, with response_url posts recorded.
type e2eHook struct {
	sim  *wecomtest.Sim
	urls *wecomtest.ResponseURLServer
	ctx  context.Context
}

func startE2EHook(t *testing.T, script scriptedmodel.Script, window time.Duration) *e2eHook {
	t.Helper()
	h := codextest.Start(t, script)
	st := testenv.OpenStores(t, testenv.Prefix(t, "files-e2e"))
	log := slog.New(slog.DiscardHandler)
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log})
	t.Cleanup(func() { _ = agent.Close() })
	ch, err := webhook.New(st, &webhook.ResponseURLDeliverer{Hosts: loopbackHosts(t)}, webhook.Options{Logger: log, StreamWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "A", WorkspaceRoot: t.TempDir(), TurnTimeout: time.Minute, UpdateInterval: 10 * time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"alice"}}, Logger: log,
	}, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = eng.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	w := serveWithMedia(t, ch.Streams(eng), wecom.Fetcher{}, log)
	urls, err := wecomtest.NewResponseURLServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = urls.Close() })
	wctx, wcancel := context.WithTimeout(ctx, hangGuard)
	t.Cleanup(wcancel)
	return &e2eHook{sim: w.sim, urls: urls, ctx: wctx}
}

// TestEngineFilesBackOverWebhook: a real command writes the files the
// answer links to; the picture is in the final frame's msg_item, the PDF is
// named on the card with how to get it, and what is outside the workspace
// or too large is refused with its reason.
func TestEngineFilesBackOverWebhook(t *testing.T) {
	e := startE2EHook(t, codextest.FilesScript(), 0)
	stream, err := e.sim.Send(e.ctx, wecomtest.Message{MsgID: "files-wh", From: "alice", Text: "make the chart and the report"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := e.sim.Follow(e.ctx, stream.ID, 20*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	imgs := final.Images()
	if !final.Finish || len(imgs) != 1 || !bytes.Equal(imgs[0], codextest.FilesChart) {
		t.Fatalf("final frame (finish %v) has %d pictures, want exactly out/chart.png", final.Finish, len(imgs))
	}
	want := codextest.FilesAnswer + "\n\n📎 **Files**\n- `out/chart.png` — shown with the answer\n" +
		"- `report.pdf` — kept in the workspace: WeCom's webhook bot can send pictures only (`/file report.pdf` says how to get it)\n" +
		codextest.FilesRefusals
	if !strings.HasSuffix(final.Content, want) {
		t.Fatalf("final frame %q\nwant it to end with\n%s", final.Content, want)
	}
	// /file answers with the reason: the webhook cannot send a file.
	asked, err := e.sim.Send(e.ctx, wecomtest.Message{MsgID: "files-wh-2", From: "alice", Text: "/file report.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := e.sim.Follow(e.ctx, asked.ID, 20*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := "📎 `report.pdf` is in the workspace, but this channel cannot send files: WeCom's webhook bot shows only pictures, with an answer. " +
		"Ask the agent to show what you need of it as text; on the long connection or the self-built app, wecodex sends files."; reply.Content != w {
		t.Fatalf("/file answered %q, want %q", reply.Content, w)
	}
}

// TestEngineContinuationPastStreamWindow (issue 27 item 5): with a 3 s
// stream window and the answer held mid-word by the scripted model, the
// card ends before the cut word, with the note; once the turn ends, the
// response_url message is marked as the continuation and carries exactly
// the rest of the answer, once, with no <think> markup.
func TestEngineContinuationPastStreamWindow(t *testing.T) {
	gate := scriptedmodel.NewGate()
	first, second := "最终答案: the first part is done.\n\n", "ECHO[window-msg-"
	rest := "0123456789] and the rest."
	answer := first + second + rest
	e := startE2EHook(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.ReasoningDeltas("thinking about it"),
		scriptedmodel.MessageDeltas("final_answer", first, second, rest),
	).WithHold(3, gate)), 3*time.Second)
	stream, err := e.sim.Send(e.ctx, wecomtest.Message{MsgID: "win-1", From: "alice", Text: "a long one",
		ResponseURL: e.urls.URL("win-1")})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-e.ctx.Done():
		t.Fatal("the model never reached the hold")
	}
	final, err := e.sim.Follow(e.ctx, stream.ID, 20*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	gate.Release()
	// The card shows the progress, then the answer up to where it was cut,
	// then the note. Held after "ECHO[window-msg-", the answer is cut
	// before that word; on a machine so loaded that no answer reached the
	// card within the window, it is cut before all of it. Never inside it.
	i := strings.LastIndex(final.Content, cards.ThinkEnd+"\n\n")
	if !strings.HasPrefix(final.Content, cards.ThinkOpen) || i < 0 {
		t.Fatalf("card ended with %q: want the progress first", final.Content)
	}
	shownPart, noted := strings.CutSuffix(final.Content[i+len(cards.ThinkEnd+"\n\n"):], cards.WindowClosedNote)
	if !noted || (shownPart != first && shownPart != "") {
		t.Fatalf("card ended with %q\nwant the progress, %q (or nothing of the answer) and the note", final.Content, first)
	}
	posts, err := e.urls.Wait(e.ctx, "win-1", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := posts[0].Message.Markdown.Content
	if want := cards.ContinuationLead + cards.FrameGap + answer[len(shownPart):]; got != want {
		t.Fatalf("continuation %q\nwant %q", got, want)
	}
	if strings.Contains(got, "<think>") || strings.Contains(got, "thinking about it") {
		t.Fatalf("continuation %q shows the progress", got)
	}
	if n := len(e.urls.Posts("win-1")); n != 1 || !posts[0].Accepted {
		t.Fatalf("response_url posts = %d (accepted %v), want one", n, posts[0].Accepted)
	}
}
