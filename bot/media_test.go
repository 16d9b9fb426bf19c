package bot_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// A message with a picture, a file, a quote and a file that never arrived,
// received on one replica and run on another (each with its own disk):
// the picture reaches the model byte for byte, the file is saved in the
// running replica's workspace under its name and named in the prompt, the
// quote is context before the text, the missing file is one line on the
// card, and the bytes leave Redis once the turn is over.
func TestAttachmentsReachCodexOnTheReplicaThatRuns(t *testing.T) {
	rig := newMediaRig(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "The build fails on line 2."))))
	pic, log := codextest.Picture(t, 7), []byte("line 1\nline 2: error\n")
	rootA, rootB := t.TempDir(), t.TempDir()
	a, b := rig.engine(t, "replica-a", rootA), rig.engine(t, "replica-b", rootB)

	m := alice("m1", "Why does it fail?",
		bot.Attachment{Kind: bot.AttachImage, Name: "screen.png", MIME: "image/png", Data: pic},
		bot.Attachment{Kind: bot.AttachFile, Name: "build.log", MIME: "text/plain", Data: log},
		bot.Attachment{Kind: bot.AttachFile, Name: "core.dump", Problem: "the download timed out"},
	)
	m.Quote = "CI is red again\nsince this morning"
	rc, err := a.Receive(t.Context(), m) // replica a never runs a turn
	if err != nil {
		t.Fatal(err)
	}
	run(t, b)
	got := rig.chat.waitFor(t, "finish")

	ws := workspace(t, rootB, "single:alice")
	want := []string{
		"show 1 single:alice: ⏳ Thinking…",
		"present single:alice: Why does it fail?",
		"final <think>\n⚠️ 📎 core.dump was not attached: the download timed out\n</think>\n\nThe build fails on line 2. | done",
		"finish",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the channel showed\n%q\nwant\n%q", got, want)
	}
	reqs := rig.h.Server.ModelRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	wantText := "Quoted message:\n> CI is red again\n> since this morning\n\n" +
		"Why does it fail?\n\n" +
		"Attached files (paths relative to the working directory):\n- attachments/build.log\n\n" +
		"Not attached:\n- core.dump: the download timed out" +
		`<image name=[Image #1] path="` + filepath.Join(ws, "attachments", "screen.png") + `"></image>`
	if reqs[0].UserText != wantText {
		t.Errorf("the model read\n%q\nwant\n%q", reqs[0].UserText, wantText)
	}
	if imgs := reqs[0].UserImages; len(imgs) != 1 || imgs[0].MIME != "image/png" || !bytes.Equal(imgs[0].Data, pic) {
		t.Errorf("the model got %d pictures, want exactly the one sent", len(imgs))
	}
	for name, data := range map[string][]byte{"screen.png": pic, "build.log": log} {
		if have, err := os.ReadFile(filepath.Join(ws, "attachments", name)); err != nil || !bytes.Equal(have, data) {
			t.Errorf("workspace file %s: %d bytes, %v; want the %d bytes sent", name, len(have), err, len(data))
		}
	}
	if _, err := os.Stat(workspace(t, rootA, "single:alice")); !os.IsNotExist(err) {
		t.Errorf("the receiving replica's disk has the workspace (%v); only the running one's should", err)
	}
	for i := range 3 {
		if _, ok, err := rig.st.Attachment(t.Context(), "single:alice", rc.Reply.To.Stream, i); err != nil || ok {
			t.Errorf("attachment %d still in Redis after the turn (%v, %v)", i, ok, err)
		}
	}
}

// A message of nothing but a file that did not arrive runs no turn: its
// reply is the line that says so.
func TestOnlyAMissingAttachmentIsAnswered(t *testing.T) {
	rig := newMediaRig(t, sm.Sequence())
	e := rig.engine(t, "r1", rig.root)
	rc, err := e.Receive(t.Context(), alice("m1", "", bot.Attachment{Kind: bot.AttachFile, Name: "huge.zip", Problem: "it is too large (31.0 MiB; the limit is 20 MiB)"}))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Reply.State != bot.ReplyFinished || rc.Reply.Text != "📎 huge.zip was not attached: it is too large (31.0 MiB; the limit is 20 MiB)" {
		t.Fatalf("reply %d %q", rc.Reply.State, rc.Reply.Text)
	}
	if n := len(rig.h.Server.ModelRequests()); n != 0 {
		t.Fatalf("%d model requests; nothing should have run", n)
	}
}

// A turn the shutdown cut short after its files were saved runs again from
// the queue and still finds them: the bytes stay in Redis until a turn
// finishes, and the re-run reuses the file it saved before (same bytes,
// same name) instead of saving a copy beside it.
func TestRequeuedTurnFindsItsAttachments(t *testing.T) {
	gate := sm.NewGate()
	t.Cleanup(gate.Release)
	rig := newMediaRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "never shown")).WithHold(0, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Read it.")),
	))
	rig.chat.requeue = true
	pic, log := codextest.Picture(t, 40), []byte("boom\n")
	first := rig.engine(t, "replica-a", rig.root)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- first.Run(ctx) }()
	rc, err := first.Receive(t.Context(), alice("m1", "Look.",
		bot.Attachment{Kind: bot.AttachImage, Name: "a.png", Data: pic},
		bot.Attachment{Kind: bot.AttachFile, Name: "boom.log", Data: log}))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-time.After(time.Minute): // a hang guard, not a speed limit
		t.Fatal("the first turn never reached the model")
	}
	cancel()
	<-stopped

	run(t, rig.engine(t, "replica-b", rig.root))
	got := rig.chat.waitFor(t, "finish")
	want := []string{
		"show 1 single:alice: ⏳ Thinking…",
		"present single:alice: Look.",
		"requeued: ⏳ The server running this turn is restarting: the message is queued again and starts over on another server in a moment.",
		"final <think>\n⏳ Working…\n</think>\n\n | running", // the cut card, handed back to waiting
		"present single:alice: Look.",
		"final Read it. | done",
		"finish",
	}
	// Intake's placeholder and the first turn's start race (the engine runs
	// while the message is received): either may be shown first.
	if len(got) > 1 && got[0] == want[1] && got[1] == want[0] {
		got[0], got[1] = got[1], got[0]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the channel showed\n%q\nwant\n%q", got, want)
	}
	reqs := rig.h.Server.ModelRequests()
	last := reqs[len(reqs)-1]
	if len(last.UserImages) != 1 || !bytes.Equal(last.UserImages[0].Data, pic) || !strings.HasPrefix(last.UserText, "Look.\n\nAttached files (paths relative to the working directory):\n- attachments/boom.log<image") {
		t.Fatalf("the re-run's request: %d pictures, text %q; want the picture and the file again", len(last.UserImages), last.UserText)
	}
	names := fileNames(t, filepath.Join(workspace(t, rig.root, "single:alice"), "attachments"))
	if !slices.Equal(names, []string{"a.png", "boom.log"}) {
		t.Fatalf("attachments/ holds %q, want each file once", names)
	}
	if _, ok, err := rig.st.Attachment(t.Context(), "single:alice", rc.Reply.To.Stream, 0); err != nil || ok {
		t.Fatalf("the picture is still in Redis after the re-run finished (%v, %v)", ok, err)
	}
}

// A file larger than bot.MaxAttachmentBytes is not kept in Redis: it is one
// line on the card, and the text runs.
func TestTooLargeAttachmentIsOneLineAndTheTextRuns(t *testing.T) {
	rig := newMediaRig(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done."))))
	e := rig.engine(t, "r1", rig.root)
	big := make([]byte, 21<<20)
	if _, err := e.Receive(t.Context(), alice("m1", "Summarise it.", bot.Attachment{Kind: bot.AttachFile, Name: "big.bin", Data: big})); err != nil {
		t.Fatal(err)
	}
	if keys := rig.attachmentKeys(t); len(keys) != 0 {
		t.Fatalf("Redis keeps %q for a file over the limit", keys)
	}
	run(t, e)
	got := rig.chat.waitFor(t, "finish")
	if want := "final <think>\n⚠️ 📎 big.bin was not attached: it is too large (21.0 MiB; the limit is 20 MiB)\n</think>\n\nDone. | done"; got[len(got)-2] != want {
		t.Fatalf("final card %q, want %q", got[len(got)-2], want)
	}
	if text := rig.h.Server.ModelRequests()[0].UserText; text != "Summarise it.\n\nNot attached:\n- big.bin: it is too large (21.0 MiB; the limit is 20 MiB)" {
		t.Fatalf("the model read %q", text)
	}
}

// A picture alone (WeCom's 1:1 image message has no text) runs a turn: the
// model gets the picture and no text of the user's beyond Codex's own
// image tag.
func TestPictureAloneRuns(t *testing.T) {
	rig := newMediaRig(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "A grid."))))
	e := rig.engine(t, "r1", rig.root)
	pic := codextest.Picture(t, 9)
	if _, err := e.Receive(t.Context(), alice("m1", "", bot.Attachment{Kind: bot.AttachImage, Name: "p.png", MIME: "image/png", Data: pic})); err != nil {
		t.Fatal(err)
	}
	run(t, e)
	got := rig.chat.waitFor(t, "finish")
	if want := []string{"show 1 single:alice: ⏳ Thinking…", "present single:alice: ", "final A grid. | done", "finish"}; !slices.Equal(got, want) {
		t.Fatalf("the channel showed\n%q\nwant\n%q", got, want)
	}
	req := rig.h.Server.ModelRequests()[0]
	wantText := `<image name=[Image #1] path="` + filepath.Join(workspace(t, rig.root, "single:alice"), "attachments", "p.png") + `"></image>`
	if req.UserText != wantText || len(req.UserImages) != 1 || !bytes.Equal(req.UserImages[0].Data, pic) {
		t.Fatalf("the model read %q with %d pictures; want %q and the picture", req.UserText, len(req.UserImages), wantText)
	}
}
