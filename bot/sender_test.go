package bot_test

import (
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

// In a session a whole group shares, the prompt the model receives names
// who asks: the display name and the userid when the channel gives a name,
// the userid alone when it does not. In a direct message it names nobody.
// The real Codex carries the prompt to the scripted model, which records
// the exact text.
func TestSharedGroupPromptNamesTheSender(t *testing.T) {
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{
		"Who wrote the parser?": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Dana did."))},
		"And the lexer?":        {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Erin did."))},
		"Just me here.":         {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Hello."))},
	}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "botsender"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	t.Cleanup(func() { _ = agent.Close() })
	chat := chattest.New()
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: t.TempDir(), UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access: bot.Access{AllowChats: []string{"team"}, AllowUsers: []string{"dana"}},
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)
	room, dm := chattest.Room("team"), chattest.DM("dana")
	named := chattest.Message("m1", room, "dana", "Who wrote the parser?")
	named.UserName = "Dana Li"
	ctx := t.Context()
	// One at a time, so the model's requests come in a known order.
	for _, step := range []struct {
		conv bot.Conversation
		m    bot.Message
	}{
		{room, named},
		{room, chattest.Message("m2", room, "erin", "And the lexer?")},
		{dm, chattest.Message("m3", dm, "dana", "Just me here.")},
	} {
		finished := len(slices.DeleteFunc(chat.Events(step.conv), func(l string) bool { return l != "finish" }))
		if _, err := e.Receive(ctx, step.m); err != nil {
			t.Fatal(err)
		}
		chat.WaitForCount(t, step.conv, "finish", finished+1)
	}
	var got []string
	for _, r := range h.Server.ModelRequests() {
		got = append(got, r.UserText)
	}
	want := []string{
		"From: Dana Li (dana)\n\nWho wrote the parser?",
		"From: erin\n\nAnd the lexer?",
		"Just me here.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the model received the prompts\n%q\nwant\n%q", got, want)
	}
	// Each turn's start is the conversation's last use, by its sender.
	rec, ok, err := st.ConversationRecord(ctx, room.Key())
	if err != nil || !ok || rec.User != "erin" || rec.Used.IsZero() || rec.Session == "" {
		t.Fatalf("the room's record is %+v (%v, %v), want erin's use and the session", rec, ok, err)
	}
}
