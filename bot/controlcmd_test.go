package bot_test

import (
	"os"
	"os/exec"
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

// controlRig is replica-a running turns on real Codex with workspace
// snapshots on, and replica-b taking messages for the same conversations
// from the same Redis (it runs no turns: whatever it takes, replica-a
// runs).
type controlRig struct {
	projectRig
	root string
	b    *bot.Engine
	// engine makes another replica on the same Redis and Codex home (one
	// started later: a restart).
	engine func(replica string) *bot.Engine
}

func newControlRig(t *testing.T, script sm.Script, busy string) *controlRig {
	t.Helper()
	h := codextest.StartWith(t, script, sm.HomeOptions{})
	st := testenv.OpenStores(t, testenv.Prefix(t, "botcontrol"))
	root := t.TempDir()
	chat := chattest.New()
	engine := func(replica string) *bot.Engine {
		agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog(), SnapshotDir: filepath.Join(root, ".snapshots")})
		t.Cleanup(func() { _ = agent.Close() })
		e, err := bot.New(bot.Config{
			Replica: replica, WorkspaceRoot: root, UpdateInterval: time.Millisecond, Logger: quietLog(),
			LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, Busy: busy,
			Access: bot.Access{AllowUsers: []string{"alice"}}, Models: bot.ModelConfig{Allowed: []string{"gpt-5.5", "other"}},
		}, testenv.EngineStore(st), agent, chat)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a := engine("replica-a")
	run(t, a)
	return &controlRig{projectRig: projectRig{h: h, st: st, chat: chat, e: a}, root: root, b: engine("replica-b"), engine: engine}
}

// lastCard is conv's latest finished card.
func (r *controlRig) lastCard(t *testing.T, conv bot.Conversation) string {
	t.Helper()
	lines := r.chat.Events(conv)
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "card: ") {
			return lines[i]
		}
	}
	t.Fatalf("no card in %q", lines)
	return ""
}

// gitWorkspace makes conv's workspace a git repository with one commit and
// one uncommitted change.
func gitWorkspace(t *testing.T, root string, conv bot.Conversation) {
	t.Helper()
	dir := workspace(t, root, conv.Key())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	writeFile(t, filepath.Join(dir, "a.txt"), "one\n")
	git("add", "a.txt")
	git("commit", "-qm", "first")
	writeFile(t, filepath.Join(dir, "a.txt"), "two\n")
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// /review, taken by replica-b, runs Codex's review as the conversation's
// next turn on replica-a: a card whose answer is the review, the
// reviewer's raw findings nowhere; the model is asked by Codex's reviewer,
// never with "/review". Someone not allowed is refused.
func TestReviewStreamsAReviewCard(t *testing.T) {
	findings := `{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Changing one to two is fine.","overall_confidence_score":0.9}`
	r := newControlRig(t, sm.Sequence(sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, sm.SplitWords(findings)...))), bot.BusyQueue)
	dm := chattest.DM("alice")
	gitWorkspace(t, r.root, dm)
	if got := say(t, r.b, "r0", chattest.DM("bob"), "bob", "/review"); got != "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list." {
		t.Errorf("bob's /review = %q", got)
	}
	help := say(t, r.b, "h1", dm, "alice", "/help")
	for _, want := range []string{"\n- `/review` [`<what to look at>`] — ", "\n- `/compact` — ", "\n- `/undo` — ", "\n- `/steer <text>` — "} {
		if !strings.Contains(help, want) {
			t.Errorf("/help has no line %q:\n%s", want, help)
		}
	}
	say(t, r.b, "r1", dm, "alice", "/review")
	r.chat.WaitFor(t, dm, "finish")
	if got, want := r.lastCard(t, dm), "card: /review | [thought: Reviewing: current changes] | Changing one to two is fine. | done"; got != want {
		t.Errorf("review card:\n got %q\nwant %q", got, want)
	}
	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].UserText, "Review the current code changes") || strings.Contains(string(reqs[0].Body), "/review") {
		t.Fatalf("model requests: %d, the first asking %q", len(reqs), reqs[0].UserText)
	}
}

// /compact sends thread/compact/start: the model is asked for Codex's
// compaction summary in a turn of its own, whose "context compacted" is a
// notice in the card's progress, never its answer; the next turn carries
// the summary.
func TestCompactCompactsTheThread(t *testing.T) {
	r := newControlRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "one")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "SUMMARY of the talk")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "three")),
	), bot.BusyQueue)
	dm := chattest.DM("alice")
	r.turn(t, "t1", dm, "alice", "first")
	r.turn(t, "c1", dm, "alice", "/compact")
	if got, want := r.lastCard(t, dm), "card: /compact | [info: Context compacted] | 🗜 Compacted: Codex carries this conversation on from a summary of it. | done"; got != want {
		t.Errorf("compact card:\n got %q\nwant %q", got, want)
	}
	r.turn(t, "t2", dm, "alice", "after")
	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].UserText, "CONTEXT CHECKPOINT COMPACTION") || !strings.Contains(string(reqs[2].Body), "SUMMARY of the talk") {
		t.Fatalf("model requests: %d; want the turn's, the compaction's, then one carrying its summary", len(reqs))
	}
}

// /undo after a turn that wrote files puts them back and says exactly
// what it undid; the model's next request no longer carries that turn.
func TestUndoRestoresTheTurnsFiles(t *testing.T) {
	r := newControlRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "kept answer")),
		sm.Reply(sm.ExecCommand("call_w", "printf changed > a.txt; printf new > b.txt")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "wrote them")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "after undo")),
	), bot.BusyQueue)
	dm := chattest.DM("alice")
	dir := workspace(t, r.root, dm.Key())
	r.turn(t, "t1", dm, "alice", "keep this")
	writeFile(t, filepath.Join(dir, "a.txt"), "original")
	r.turn(t, "t2", dm, "alice", "write the files")
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "changed" {
		t.Fatalf("the turn did not write a.txt: %q", got)
	}
	r.turn(t, "u1", dm, "alice", "/undo")
	want := "card: /undo | [] | ↩️ Undid the last turn, which was asked: “write the files”\nCodex no longer remembers it.\n\n" +
		"Put back as they were before it:\n- `a.txt`\n\nRemoved, as it had created them:\n- `b.txt` | done"
	if got := r.lastCard(t, dm); got != want {
		t.Errorf("undo card:\n got %q\nwant %q", got, want)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "original" {
		t.Errorf("a.txt after /undo: %q, want original", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt after /undo: %v, want it gone", err)
	}
	r.turn(t, "t3", dm, "alice", "next")
	reqs := r.h.Server.ModelRequests()
	body := string(reqs[len(reqs)-1].Body)
	if len(reqs) != 4 || !strings.Contains(body, "kept answer") || strings.Contains(body, "write the files") || strings.Contains(body, "wrote them") {
		t.Errorf("model requests: %d; the last must carry the first turn and not the undone one", len(reqs))
	}
}

// /steer, taken by replica-b while replica-a's turn is held mid-answer,
// reaches the model in that same turn: one turn, two model requests, the
// second asking the steer; the card shows it in its progress and the
// steer's reply says it was added.
func TestSteerReachesTheRunningTurn(t *testing.T) {
	gate := sm.NewGate()
	r := newControlRig(t, sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "work", "ing")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "did X too")),
	), bot.BusyQueue)
	dm := chattest.DM("alice")
	say(t, r.e, "t1", dm, "alice", "start")
	<-gate.Reached()
	// The model's first words on the card before the steer: the gate says
	// the model sent them, not that Codex passed them on, and a card steered
	// before they reached it ended without them (once, in CI).
	r.chat.WaitForBody(t, dm, "work")
	if got := say(t, r.b, "s1", dm, "alice", "/steer also do X"); got != "➕ Adding this to the running turn…" {
		t.Errorf("/steer = %q", got)
	}
	r.chat.WaitFor(t, dm, "reply finished: ➕ Added to the running turn: its card shows it.")
	gate.Release()
	r.chat.WaitFor(t, dm, "finish")
	if got, want := r.lastCard(t, dm), "card: start | [info: ➕ also do X] | work\n\ndid X too | done"; got != want {
		t.Errorf("card:\n got %q\nwant %q", got, want)
	}
	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 2 || reqs[0].UserText != "start" || reqs[1].UserText != "also do X" {
		t.Fatalf("model requests: %d, want the turn's and the steer's in it", len(reqs))
	}
	starts := 0
	for _, l := range r.chat.Events(dm) {
		if strings.HasPrefix(l, "start: ") {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("%d turns started, want 1", starts)
	}
}

// Under agent.busy: steer a plain message sent while a turn runs steers
// it; with no turn running, /steer's text runs as a message of its own.
func TestBusySteerSteersPlainMessages(t *testing.T) {
	gate := sm.NewGate()
	r := newControlRig(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "idle answer")),
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "work", "ing")).WithHold(1, gate),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "steered")),
	), bot.BusySteer)
	dm := chattest.DM("alice")
	r.turn(t, "s0", dm, "alice", "/steer nothing runs")
	if got, want := r.lastCard(t, dm), "card: nothing runs | [] | idle answer | done"; got != want {
		t.Errorf("idle /steer card: %q, want %q", got, want)
	}
	say(t, r.e, "t1", dm, "alice", "start")
	<-gate.Reached()
	say(t, r.b, "t2", dm, "alice", "plain words")
	r.chat.WaitFor(t, dm, "reply finished: ➕ Added to the running turn: its card shows it.")
	gate.Release()
	r.chat.WaitForCount(t, dm, "finish", 2)
	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 3 || reqs[2].UserText != "plain words" {
		t.Fatalf("model requests: %d, want the idle turn's, the turn's and the steer's in it", len(reqs))
	}
}

func say(t *testing.T, e *bot.Engine, id string, conv bot.Conversation, user, text string) string {
	t.Helper()
	rc, err := e.Receive(t.Context(), chattest.Message(id, conv, user, text))
	if err != nil {
		t.Fatal(err)
	}
	return rc.Reply.Text
}
