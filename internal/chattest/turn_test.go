package chattest_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// A channel that is not WeCom, with conversations of its own kinds, runs
// whole turns through the real engine, the real Codex (driven by the
// scripted model) and the real Redis: a room's member the room's access
// lets in, and a user allowed by name in a direct message. Each turn's card
// shows the commentary as progress and the answer as its body; a user
// allowed nowhere is refused; the room and the direct message are two
// conversations, keyed in the channel's own space.
func TestChatChannelRunsTurnsThroughTheEngine(t *testing.T) {
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{
		"What is in the room?": {sm.Reply(
			sm.Message(sm.PhaseCommentary, "Looking around the room."),
			sm.Message(sm.PhaseFinalAnswer, "The room is empty."),
		)},
		"Say hello.": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Hello, dave."))},
	}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "chattest"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log})
	t.Cleanup(func() { _ = agent.Close() })
	chat, root := chattest.New(), t.TempDir()
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: root, UpdateInterval: time.Millisecond, Logger: log,
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access: bot.Access{AllowChats: []string{"r1"}, AllowUsers: []string{"dave"}},
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	room, dm, refused := chattest.Room("r1"), chattest.DM("dave"), chattest.DM("carol")
	ctx := t.Context()
	// Received before the engine runs, so each reply's placeholder comes
	// before its turn starts.
	for _, m := range []bot.Message{
		chattest.Message("m1", room, "carol", "What is in the room?"),
		chattest.Message("m2", dm, "dave", "Say hello."),
		chattest.Message("m3", refused, "carol", "And me?"),
	} {
		if _, err := e.Receive(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })

	for _, c := range []struct {
		conv bot.Conversation
		want []string
	}{
		{room, []string{
			"reply waiting: ⏳ Thinking…",
			"start: What is in the room?",
			"card: What is in the room? | [thought: Looking around the room.] | The room is empty. | done",
			"finish",
		}},
		{dm, []string{
			"reply waiting: ⏳ Thinking…",
			"start: Say hello.",
			"card: Say hello. | [] | Hello, dave. | done",
			"finish",
		}},
	} {
		if got := chat.WaitFor(t, c.conv, "finish"); !slices.Equal(got, c.want) {
			t.Errorf("%s showed\n%q\nwant\n%q", c.conv.Key(), got, c.want)
		}
	}
	wantRefused := []string{"reply finished: Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."}
	if got := chat.Events(refused); !slices.Equal(got, wantRefused) {
		t.Errorf("carol's direct message showed %q, want %q", got, wantRefused)
	}

	// The conversations are keyed in the channel's own space, each with its
	// session and its workspace.
	s1, cwd1, err1 := st.Conversation(ctx, "room:r1")
	s2, cwd2, err2 := st.Conversation(ctx, "dm:dave")
	if err1 != nil || err2 != nil || s1 == "" || s2 == "" || s1 == s2 {
		t.Fatalf("sessions: room %q (%v), dm %q (%v); want two different ones", s1, err1, s2, err2)
	}
	for key, cwd := range map[string]string{"room:r1": cwd1, "dm:dave": cwd2} {
		want, _ := filepath.Abs(bot.WorkspaceDir(root, key))
		if info, err := os.Stat(cwd); cwd != want || err != nil || !info.IsDir() {
			t.Errorf("workspace of %s = %q (%v), want the directory %q", key, cwd, err, want)
		}
	}
}
