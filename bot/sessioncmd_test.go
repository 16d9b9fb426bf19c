package bot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// sessionReplica is one replica on a shared Redis and CODEX_HOME, its
// engine running until stop.
type sessionReplica struct {
	*projectRig
	agent *codex.Agent
	stop  func()
}

func startSessionReplica(t *testing.T, name string, h *codextest.Harness, st *testenv.Stores) *sessionReplica {
	t.Helper()
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog()})
	chat := chattest.New()
	e, err := bot.New(bot.Config{
		Replica: name, WorkspaceRoot: h.Workspace, UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access:  bot.Access{AllowUsers: []string{"alice", "bob"}},
		Threads: agent,
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	var once bool
	stop := func() {
		if !once {
			once = true
			cancel()
			<-done
			_ = agent.Close()
		}
	}
	t.Cleanup(stop)
	return &sessionReplica{projectRig: &projectRig{h: h, st: st, chat: chat, e: e}, agent: agent, stop: stop}
}

func answer(s string) []sm.Response {
	return []sm.Response{sm.Reply(sm.Message(sm.PhaseFinalAnswer, s))}
}

// sessionsWant is /sessions' answer for conv as the store recorded its
// sessions' uses, each line's label given newest first; current is the
// 1-based number marked ▶ (0: none); extra is added to line n.
func sessionsWant(t *testing.T, st *testenv.Stores, conv bot.Conversation, current int, extra map[int]string, labels ...string) string {
	t.Helper()
	ids, _, used, err := st.UsedThreads(t.Context(), conv.Key())
	if err != nil || len(ids) != len(labels) {
		t.Fatalf("%s has sessions %v (%v), want %d", conv.Key(), ids, err, len(labels))
	}
	var b strings.Builder
	b.WriteString("**Sessions** of this conversation (▶ the one it is on)\n")
	for i, l := range labels {
		mark := ""
		if i+1 == current {
			mark = "▶ "
		}
		fmt.Fprintf(&b, "%d. %s“%s” — %s%s\n", i+1, mark, l, used[i].UTC().Format("2006-01-02 15:04 UTC"), extra[i+1])
	}
	b.WriteString("\n`/resume <n>` continues one, `/fork <n>` branches one into a new session, `/name <text>` names the current one.")
	return b.String()
}

// requestFor is the model request that answered prompt.
func requestFor(t *testing.T, h *codextest.Harness, prompt string) string {
	t.Helper()
	for _, r := range h.Server.ModelRequests() {
		if r.UserText == prompt {
			return string(r.Body)
		}
	}
	t.Fatalf("no model request answered %q", prompt)
	return ""
}

// /sessions lists a conversation's sessions on any replica; /resume 2 on
// a second replica, the first one gone, makes the next turn there continue
// that session: the model's request carries its history and not the
// other's. No command reaches the model.
func TestResumeOnAnotherReplica(t *testing.T) {
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{
		"alpha one": answer("A1"), "beta one": answer("B1"), "alpha two": answer("A2"),
	}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "botsessions"))
	a := startSessionReplica(t, "replica-a", h, st)
	dm := chattest.DM("alice")
	a.turn(t, "m1", dm, "alice", "alpha one")
	a.say(t, "m2", dm, "alice", "/new")
	a.turn(t, "m3", dm, "alice", "beta one")
	if got, want := a.say(t, "m4", dm, "alice", "/sessions"), sessionsWant(t, st, dm, 1, nil, "beta one", "alpha one"); got != want {
		t.Fatalf("/sessions on replica-a:\n%s\nwant\n%s", got, want)
	}
	a.stop()

	b := startSessionReplica(t, "replica-b", h, st)
	if got, want := b.say(t, "m5", dm, "alice", "/sessions"), sessionsWant(t, st, dm, 1, nil, "beta one", "alpha one"); got != want {
		t.Fatalf("/sessions on replica-b:\n%s\nwant\n%s", got, want)
	}
	if got, want := b.say(t, "m6", dm, "alice", "/resume 2"), "OK — this conversation is on session 2, “alpha one”, again: the next message continues it."; got != want {
		t.Fatalf("/resume 2 = %q, want %q", got, want)
	}
	if got, want := b.say(t, "m7", dm, "alice", "/resume 1"), "Session 1 is already this conversation's: the next message continues it."; got != want {
		t.Fatalf("/resume 1 after /resume 2 = %q, want %q", got, want)
	}
	b.turn(t, "m8", dm, "alice", "alpha two")
	body := requestFor(t, h, "alpha two")
	if !strings.Contains(body, "alpha one") || !strings.Contains(body, "A1") || strings.Contains(body, "beta one") {
		t.Fatalf("the request after /resume 2 does not carry exactly alpha's history:\n%s", body)
	}
	if n := len(h.Server.ModelRequests()); n != 3 {
		t.Fatalf("the model saw %d requests, want 3: a command reached it", n)
	}
	if got := b.chat.Events(dm); got[len(got)-1] != "finish" || !strings.Contains(strings.Join(got, "\n"), "A2") {
		t.Fatalf("replica-b's chat = %q, want alpha two's card, finished", got)
	}
	if got, want := b.say(t, "m9", dm, "alice", "/sessions"), sessionsWant(t, st, dm, 1, nil, "alpha one", "beta one"); got != want {
		t.Fatalf("/sessions after the resumed turn:\n%s\nwant\n%s", got, want)
	}
}

// /fork 1 branches the session: the next turn continues the fork with the
// original's history, and the original, resumed, has none of the fork's
// turn. /name names the current session, for wecodex and Codex alike;
// /resume and /fork wait for a running turn, and take only a number.
func TestForkLeavesTheOriginal(t *testing.T) {
	gate := sm.NewGate()
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{
		"root words": answer("R1"), "on the fork": answer("F1"), "on the original": answer("O1"),
		"hold on": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "held")).WithHold(1, gate)},
	}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "botsessions"))
	r := startSessionReplica(t, "replica-a", h, st)
	dm := chattest.DM("alice")
	r.turn(t, "m1", dm, "alice", "root words")
	original, _, _ := st.Conversation(t.Context(), dm.Key())
	for i, c := range []struct{ say, want string }{
		{"/fork", "`/fork <n>` takes the number of a session on `/sessions`."},
		{"/fork " + original, "`/fork <n>` takes the number of a session on `/sessions`."},
		{"/fork 2", "There is no session 2 here: `/sessions` lists this conversation's 1."},
		{"/fork 1", "OK — session 1, “root words”, is forked: the next message continues the new branch, and the original stays as it was."},
	} {
		if got := r.say(t, fmt.Sprint("f", i), dm, "alice", c.say); got != c.want {
			t.Errorf("%s = %q, want %q", c.say, got, c.want)
		}
	}
	fork, _, _ := st.Conversation(t.Context(), dm.Key())
	if fork == original || fork == "" {
		t.Fatalf("after /fork 1 the conversation is on %q, want a new session (the original %s)", fork, original)
	}
	r.turn(t, "m2", dm, "alice", "on the fork")
	if body := requestFor(t, h, "on the fork"); !strings.Contains(body, "root words") || !strings.Contains(body, "R1") {
		t.Fatalf("the fork's request does not carry the original's history:\n%s", body)
	}
	if got, want := r.say(t, "n1", dm, "alice", "/name  the   branch "), "OK — this session is named “the branch”."; got != want {
		t.Fatalf("/name = %q, want %q", got, want)
	}
	if got, want := r.say(t, "s1", dm, "alice", "/sessions"), sessionsWant(t, st, dm, 1, map[int]string{1: " · fork"}, "the branch", "root words"); got != want {
		t.Fatalf("/sessions after the fork:\n%s\nwant\n%s", got, want)
	}
	infos, err := r.agent.ThreadInfo(t.Context(), []string{fork, original})
	if err != nil || infos[fork].Name != "the branch" || infos[original].Name != "" {
		t.Fatalf("Codex names the fork %q and the original %q (%v), want the branch and none", infos[fork].Name, infos[original].Name, err)
	}

	r.say(t, "m3", dm, "alice", "hold on")
	<-gate.Reached()
	if got, want := r.say(t, "f9", dm, "alice", "/resume 2"), "A turn is running here: `/resume 2` once it has ended (or `/stop` it first)."; got != want {
		t.Fatalf("/resume 2 mid-turn = %q, want %q", got, want)
	}
	gate.Release()
	r.chat.WaitForCount(t, dm, "finish", 3)
	r.leaseFree(t, dm)
	if got, want := r.say(t, "r1", dm, "alice", "/resume 2"), "OK — this conversation is on session 2, “root words”, again: the next message continues it."; got != want {
		t.Fatalf("/resume 2 = %q, want %q", got, want)
	}
	r.turn(t, "m4", dm, "alice", "on the original")
	body := requestFor(t, h, "on the original")
	if !strings.Contains(body, "root words") || strings.Contains(body, "on the fork") || strings.Contains(body, "hold on") {
		t.Fatalf("the original's request after the fork's turns:\n%s\nwant its own history only", body)
	}
	if n := len(h.Server.ModelRequests()); n != 4 {
		t.Fatalf("the model saw %d requests, want 4: a command reached it", n)
	}
}

// A conversation sees and takes only its own sessions: another one's
// list is empty, a number past its own list or a session id of another
// conversation is refused, and its turns never carry the other's history.
func TestSessionsAreTheConversationsOwn(t *testing.T) {
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{
		"alice secret": answer("S1"), "bob hello": answer("H1"),
	}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "botsessions"))
	r := startSessionReplica(t, "replica-a", h, st)
	alice, bob := chattest.DM("alice"), chattest.DM("bob")
	r.turn(t, "m1", alice, "alice", "alice secret")
	secret, _, _ := st.Conversation(t.Context(), alice.Key())
	for i, c := range []struct{ say, want string }{
		{"/sessions", "This conversation has no sessions yet: the next message starts one."},
		{"/resume 1", "This conversation has no sessions yet: the next message starts one."},
		{"/fork 1", "This conversation has no sessions yet: the next message starts one."},
		{"/resume " + secret, "`/resume <n>` takes the number of a session on `/sessions`."},
		{"/name mine", "This conversation has no session yet: the next message starts one, which `/name` can name then."},
	} {
		if got := r.say(t, fmt.Sprint("b", i), bob, "bob", c.say); got != c.want {
			t.Errorf("bob's %s = %q, want %q", c.say, got, c.want)
		}
	}
	// The room alice speaks in is another conversation too.
	if got, want := r.say(t, "g1", chattest.Room("team"), "alice", "/resume 1"), "This conversation has no sessions yet: the next message starts one."; got != want {
		t.Errorf("alice's /resume 1 in a room = %q, want %q", got, want)
	}
	r.turn(t, "m2", bob, "bob", "bob hello")
	if got, want := r.say(t, "b9", bob, "bob", "/resume 2"), "There is no session 2 here: `/sessions` lists this conversation's 1."; got != want {
		t.Errorf("bob's /resume 2 = %q, want %q", got, want)
	}
	if body := requestFor(t, h, "bob hello"); strings.Contains(body, "alice secret") {
		t.Fatalf("bob's request carries alice's history:\n%s", body)
	}
	if got, want := r.say(t, "b10", bob, "bob", "/sessions"), sessionsWant(t, st, bob, 1, nil, "bob hello"); got != want {
		t.Fatalf("bob's /sessions:\n%s\nwant\n%s", got, want)
	}
	if s, _, _ := st.Conversation(t.Context(), bob.Key()); s == secret {
		t.Fatalf("bob's conversation is on alice's session %s", secret)
	}
}

// A session is continued only where it worked: after /project web, a
// session of api is refused, naming the switch back; once switched, it
// is resumed, and /sessions names each session's project.
func TestResumeStaysInItsProject(t *testing.T) {
	r := newProjectRig(t, sm.ByPrompt(map[string][]sm.Response{
		"in api": answer("api answer"), "in web": answer("web answer"), "api again": answer("api second"),
	}))
	dm := chattest.DM("alice")
	r.turn(t, "m1", dm, "alice", "in api")
	r.say(t, "p1", dm, "alice", "/project web")
	r.turn(t, "m2", dm, "alice", "in web")
	for i, c := range []struct{ say, want string }{
		{"/resume 2", "Session 2 works in project `api`, not where this conversation works now: switch with `/project api` first, then `/resume 2`."},
		{"/fork 2", "This agent cannot fork sessions."}, // this rig's engine has no Config.Threads
		{"/project api", "OK — this conversation now works in `api`. The next message starts a fresh session there."},
		{"/resume 2", "OK — this conversation is on session 2, “in api”, again: the next message continues it."},
	} {
		if got := r.say(t, fmt.Sprint("c", i), dm, "alice", c.say); got != c.want {
			t.Errorf("%s = %q, want %q", c.say, got, c.want)
		}
	}
	if got, want := r.say(t, "s1", dm, "alice", "/sessions"), sessionsWant(t, r.st, dm, 1, map[int]string{1: " · `api`", 2: " · `web`"}, "in api", "in web"); got != want {
		t.Fatalf("/sessions:\n%s\nwant\n%s", got, want)
	}
	r.turn(t, "m3", dm, "alice", "api again")
	if body := requestFor(t, r.h, "api again"); !strings.Contains(body, "in api") || strings.Contains(body, "in web") {
		t.Fatalf("the resumed api session's request:\n%s", body)
	}
}

// A fork Codex cannot make (the session's rollout is gone) is answered
// as such, and the conversation stays on its session.
func TestForkCodexCannotMake(t *testing.T) {
	h := codextest.Start(t, sm.ByPrompt(map[string][]sm.Response{"gone soon": answer("G1")}))
	st := testenv.OpenStores(t, testenv.Prefix(t, "botsessions"))
	r := startSessionReplica(t, "replica-a", h, st)
	dm := chattest.DM("alice")
	r.turn(t, "m1", dm, "alice", "gone soon")
	before, _, _ := st.Conversation(t.Context(), dm.Key())
	rollouts, err := filepath.Glob(filepath.Join(h.Home, "sessions", "*", "*", "*", "rollout-*"+before+".jsonl"))
	if err != nil || len(rollouts) != 1 {
		t.Fatalf("rollouts of %s: %v (%v), want one", before, rollouts, err)
	}
	if err := os.Remove(rollouts[0]); err != nil {
		t.Fatal(err)
	}
	if got, want := r.say(t, "f1", dm, "alice", "/fork 1"), "Session 1 could not be forked (the log says why): this conversation stays on its session."; got != want {
		t.Fatalf("/fork 1 = %q, want %q", got, want)
	}
	if after, _, _ := st.Conversation(t.Context(), dm.Key()); after != before {
		t.Fatalf("after a failed fork the conversation is on %q, want %q", after, before)
	}
}
