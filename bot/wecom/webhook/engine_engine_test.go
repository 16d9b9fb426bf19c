package webhook_test

import (
	"slices"
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
)

func TestRepeatedMessageRunsOneTurn(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	// The turn is held at a gate until every delivery was answered: with an
	// agent this quick, a repeat could otherwise meet the finished card.
	m := msg("m1", "alice", "gate:hello")
	var wg sync.WaitGroup
	frames := make([]webhook.Frame, 3)
	for i := range frames {
		wg.Go(func() { frames[i] = receive(t, r.e, m) })
	}
	wg.Wait()
	id := frames[0].StreamID
	for i, f := range frames {
		if f.StreamID != id || f.Finish {
			t.Fatalf("delivery %d: %+v, want stream %s, not finished", i, f, id)
		}
	}
	r.agent.release("hello")
	final := waitFinished(t, r.e, id)
	if want := (card{text: "gate:hello", withAnswer: true, status: done()}).render(); final.Content != want {
		t.Fatalf("final frame:\n%q\nwant\n%q", final.Content, want)
	}
	// A fourth delivery after the turn gets the finished frame, no new turn.
	if again := receive(t, r.e, m); again != final {
		t.Fatalf("repeat after the turn = %+v, want %+v", again, final)
	}
	if got := r.agent.Prompts(); !slices.Equal(got, []string{"gate:hello"}) {
		t.Fatalf("prompts = %q, want one", got)
	}
}

func TestRefusedUserStartsNothing(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	for _, m := range []bot.Message{msg("m1", "mallory", "rm -rf /"), msg("m2", "mallory", "/status")} {
		f := receive(t, r.e, m)
		want := webhook.Frame{StreamID: f.StreamID, Content: "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list.", Finish: true}
		if f != want {
			t.Fatalf("%s: %+v, want %+v", m.Text, f, want)
		}
		if stored, _, _ := webhook.FrameOf(r.e.ch, t.Context(), f.StreamID); stored != want {
			t.Fatalf("stored frame %+v, want %+v", stored, want)
		}
	}
	if p, n := r.agent.Prompts(), r.agent.Sessions(); len(p) != 0 || n != 0 {
		t.Fatalf("agent used: prompts %q, sessions %d", p, n)
	}
}

func TestAccess(t *testing.T) {
	a := bot.Access{AllowUsers: []string{"alice"}, AllowChats: []string{"chat1"}, Admins: []string{"root"}}
	for _, c := range []struct {
		m    bot.Message
		want bool
	}{
		{bot.Message{User: "alice", Conversation: wecom.SingleChat("alice")}, true},
		{bot.Message{User: "bob", Conversation: wecom.SingleChat("bob")}, false},
		{bot.Message{User: "bob", Conversation: wecom.GroupChat("chat1")}, true},
		{bot.Message{User: "bob", Conversation: wecom.GroupChat("chat2")}, false},
		{bot.Message{User: "alice", Conversation: wecom.GroupChat("chat2")}, true},
		{bot.Message{User: "root", Conversation: wecom.GroupChat("chat2")}, true},
		// A 1:1 conversation id equal to an allowed chat id does not count.
		{bot.Message{User: "chat1", Conversation: wecom.SingleChat("chat1")}, false},
	} {
		if got := a.Allowed(c.m); got != c.want {
			t.Errorf("Allowed(%+v) = %v, want %v", c.m, got, c.want)
		}
	}
	if (bot.Access{}).Allowed(bot.Message{User: "alice"}) {
		t.Error("empty access lists allowed someone")
	}
	if !(bot.Access{AllowUsers: []string{"*"}}).Allowed(bot.Message{User: "anyone"}) {
		t.Error(`"*" did not allow everyone`)
	}
}

func TestStopCancelsTheRunningTurn(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	f := receive(t, r.e, msg("m1", "alice", "block"))
	waitStarted(t, r.agent, "block")
	stop := receive(t, r.e, msg("m2", "alice", "/stop"))
	if stop.Content != "OK — asked the running turn to stop." || !stop.Finish {
		t.Fatalf("/stop answered %+v", stop)
	}
	final := waitFinished(t, r.e, f.StreamID)
	want := card{text: "block", after: []acpbridge.Notice{{Level: acpbridge.NoticeInfo, Text: "Stopped with /stop."}},
		status: cards.Status{State: cards.StateCancelled}}.render()
	if final.Content != want {
		t.Fatalf("final frame:\n%q\nwant\n%q", final.Content, want)
	}
	if !strings.Contains(final.Content, "⏹ Cancelled") {
		t.Fatalf("final frame does not say cancelled: %q", final.Content)
	}
	// The conversation goes on.
	next := receive(t, r.e, msg("m3", "alice", "again"))
	if got := waitFinished(t, r.e, next.StreamID).Content; got != (card{text: "again", withAnswer: true, status: done()}).render() {
		t.Fatalf("next turn: %q", got)
	}
	idle := receive(t, r.e, msg("m4", "alice", "/stop"))
	if idle.Content != "Nothing is running in this conversation." {
		t.Fatalf("/stop when idle: %q", idle.Content)
	}
}

func TestQueuedMessageWaitsItsTurn(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	first := receive(t, r.e, msg("m1", "alice", "gate:one"))
	// The callback is answered with the stream's newest frame: the
	// placeholder, or the running card when the turn wrote its first frame
	// before the answer was read back (a loaded machine, either order).
	if running := (card{text: "gate:one"}).render(); (first.Content != thinking && first.Content != running) || first.Finish {
		t.Fatalf("first message: %+v, want %q or %q, not finished", first, thinking, running)
	}
	waitStarted(t, r.agent, "gate:one")
	second := receive(t, r.e, msg("m2", "alice", "second"))
	third := receive(t, r.e, msg("m3", "alice", "third"))
	for i, f := range []webhook.Frame{second, third} {
		want := webhook.Frame{StreamID: f.StreamID, Content: "⏳ Queued (position " + string(rune('1'+i)) + ") — waiting for the running turn to finish."}
		if f != want {
			t.Fatalf("queued message %d: %+v, want %+v", i+1, f, want)
		}
	}
	status := receive(t, r.e, msg("m4", "alice", "/status"))
	// No replica and no session id: those are the server's, for its log.
	if want := "**Status**\n- turn: running\n- waiting: 2\n- session: started (/new starts a fresh one)\n- model: Codex's default\n- effort: Codex's default\n- mode: `workspace` (the default)"; status.Content != want {
		t.Fatalf("/status:\n%s\nwant\n%s", status.Content, want)
	}
	r.agent.release("one")
	for _, c := range []struct {
		id   string
		text string
	}{{first.StreamID, "gate:one"}, {second.StreamID, "second"}, {third.StreamID, "third"}} {
		got := waitFinished(t, r.e, c.id).Content
		if want := (card{text: c.text, withAnswer: true, status: done()}).render(); got != want {
			t.Fatalf("%s:\n%q\nwant\n%q", c.text, got, want)
		}
	}
	if got := r.agent.Prompts(); !slices.Equal(got, []string{"gate:one", "second", "third"}) {
		t.Fatalf("prompts in order %q", got)
	}
	if r.agent.Sessions() != 1 {
		t.Fatalf("sessions = %d, want one shared by the conversation", r.agent.Sessions())
	}
}

func TestNewStartsAFreshSession(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	waitFinished(t, r.e, receive(t, r.e, msg("m1", "alice", "one")).StreamID)
	if f := receive(t, r.e, msg("m2", "alice", "/new")); f.Content != "OK — the next message starts a fresh session." || !f.Finish {
		t.Fatalf("/new: %+v", f)
	}
	if f := receive(t, r.e, msg("m3", "alice", "/status")); f.Content != "**Status**\n- turn: idle\n- waiting: 0\n- session: none yet (the next message starts one)\n- model: Codex's default\n- effort: Codex's default\n- mode: `workspace` (the default)" {
		t.Fatalf("/status after /new: %q", f.Content)
	}
	waitFinished(t, r.e, receive(t, r.e, msg("m4", "alice", "two")).StreamID)
	if r.agent.Sessions() != 2 {
		t.Fatalf("sessions = %d, want 2", r.agent.Sessions())
	}
	help := receive(t, r.e, msg("m5", "alice", "/HELP"))
	if !help.Finish || !strings.HasPrefix(help.Content, "**Commands**\n- `/new`") {
		t.Fatalf("/help: %+v", help)
	}
	if got := r.agent.Prompts(); !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("prompts %q: a command reached the agent", got)
	}
}

func TestAgentErrorFailsTheCardAndTheNextMessageWorks(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	got := waitFinished(t, r.e, receive(t, r.e, msg("m1", "alice", "fail")).StreamID).Content
	// An error no adapter gave a kind gets the engine's one sentence; its
	// words go to the log.
	const failed = "The agent could not finish this turn; send the message again, and if it fails again an admin reads the bot's log."
	want := card{text: "fail", status: cards.Status{State: cards.StateFailed, Detail: failed}}.render()
	if got != want || !strings.Contains(got, "❌ Failed: "+failed) {
		t.Fatalf("failed turn:\n%q\nwant\n%q", got, want)
	}
	got = waitFinished(t, r.e, receive(t, r.e, msg("m2", "alice", "ok now")).StreamID).Content
	if want := (card{text: "ok now", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("next turn:\n%q\nwant\n%q", got, want)
	}
}

func TestTurnTimeoutFails(t *testing.T) {
	cfg := testConfig(t, "a")
	cfg.TurnTimeout = 50 * time.Millisecond
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), cfg)
	r.run(t)
	got := waitFinished(t, r.e, receive(t, r.e, msg("m1", "alice", "block")).StreamID).Content
	failed := cards.Status{State: cards.StateFailed, Detail: "timed out after 50ms (agent.turn_timeout)"}
	want := card{text: "block", status: failed}.render()
	// On a loaded machine the timeout may strike before the agent's first
	// update; the card must say the same then, without the thought.
	early := cards.New(cards.WithStreamLimit(wecom.MaxStreamContentBytes - 256))
	early.SetStatus(failed)
	if got != want && got != early.Stream(0, 0).Content {
		t.Fatalf("timed out turn:\n%q\nwant\n%q", got, want)
	}
}

// A turn that outlives the stream window: the stream finishes with a note
// and the answer arrives through the Deliverer, exactly once.
func TestStreamWindowRollsOverToTheDeliverer(t *testing.T) {
	st := newRecordingStore(t)
	r := newReplica(t, st, testConfig(t, "a"))
	win := firstWindow(r.e)
	r.run(t)
	text := "gate:w"
	id := receive(t, r.e, msg("m1", "alice", text)).StreamID
	// The window ends once the agent's first thought is on the stream.
	st.waitFor(t, "showed the thought", lastHas("working on: "+text))
	win <- time.Now()
	final := waitFinished(t, r.e, id)
	if want := (card{text: text}).render() + windowNote; final.Content != want {
		t.Fatalf("stream ended with:\n%q\nwant\n%q", final.Content, want)
	}
	if ds := r.out.all(); len(ds) != 0 {
		t.Fatalf("delivered before the turn ended: %+v", ds)
	}
	r.agent.release("w")
	ds := waitDeliveries(t, r.out)
	checkDeliveries(t, ds, "alice", id, "https://reply/m1")
	if len(ds) != 1 || bodies(ds) != answer(text) {
		t.Fatalf("deliveries %+v, want the whole answer once", ds)
	}
	// Only the answer's rest, marked as the card's continuation: no
	// progress, no <think> (WeCom folds it only inside a stream).
	if want := cards.ContinuationLead + cards.FrameGap + answer(text); ds[0].Markdown != want {
		t.Fatalf("delivered markdown:\n%q\nwant\n%q", ds[0].Markdown, want)
	}
	if f, _, _ := webhook.FrameOf(r.e.ch, t.Context(), id); f != final {
		t.Fatalf("the finished stream changed: %+v", f)
	}
}

// A body larger than a stream and its one continuation message: the stream
// shows the start, the Deliverer one more part, and /more the rest — every
// byte exactly once, each reply within WeCom's cap.
func TestLongAnswerContinuesThroughTheDelivererAndMore(t *testing.T) {
	r := newReplica(t, testenv.OpenStores(t, testenv.Prefix(t, "bot")), testConfig(t, "a"))
	r.run(t)
	text := "big:50000"
	id := receive(t, r.e, msg("m1", "alice", text)).StreamID
	final := waitFinished(t, r.e, id)
	ds := waitDeliveries(t, r.out)
	checkDeliveries(t, ds, "alice", id, "https://reply/m1")
	a := answer(text)
	shown := strings.Index(a, ds[0].Body)
	if len(ds) != 1 || !ds[0].More || shown <= 0 || !strings.Contains(final.Content, a[:shown]) {
		t.Fatalf("want the stream to show a[:k] and one delivery of a[k:m] with More set; got %d deliveries", len(ds))
	}
	if !strings.HasSuffix(ds[0].Markdown, "Send `/more` for the next part of the answer.") {
		t.Fatalf("the delivery does not tell the user to send /more: ...%q", ds[0].Markdown[len(ds[0].Markdown)-80:])
	}
	unread := a[shown+len(ds[0].Body):]
	more := receive(t, r.e, msg("m2", "alice", "/more"))
	if !more.Finish || !strings.HasPrefix(more.Content, "_Continuing the answer to “big:50000”:_\n\n"+unread) {
		t.Fatalf("/more shows %.120q…, want the unread %d bytes", more.Content, len(unread))
	}
	if strings.Contains(more.Content, "/more") {
		t.Fatal("/more offered more although the answer was complete")
	}
	again := receive(t, r.e, msg("m3", "alice", "/more"))
	if again.Content != "There is no more to show: the last answer was shown in full." {
		t.Fatalf("second /more: %q", again.Content)
	}
	for _, c := range []string{final.Content, ds[0].Markdown, more.Content} {
		if len(c) > wecom.MaxStreamContentBytes {
			t.Fatalf("a reply is %d bytes, over WeCom's %d", len(c), wecom.MaxStreamContentBytes)
		}
	}
}

func waitDeliveries(t *testing.T, d *deliveries) []webhook.Delivery {
	t.Helper()
	eventually(t, func() string { return "nothing delivered" }, func() bool { return len(d.all()) > 0 })
	return d.all()
}

func checkDeliveries(t *testing.T, ds []webhook.Delivery, user, stream, url string) {
	t.Helper()
	for i, d := range ds {
		if d.User != user || d.Conversation != wecom.SingleChat(user) || d.StreamID != stream || d.ReplyURL != url {
			t.Fatalf("delivery %d: user %q conv %q stream %q url %q", i, d.User, d.Conversation, d.StreamID, d.ReplyURL)
		}
		if !strings.Contains(d.Markdown, d.Body) || len(d.Markdown) > wecom.MaxStreamContentBytes {
			t.Fatalf("delivery %d markdown (%d bytes) does not carry its body", i, len(d.Markdown))
		}
	}
}
