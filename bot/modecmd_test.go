package bot_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

const writeCmd = "exec 2>&1; echo changed > w.txt; echo exit=$?"

// writeTitle is how Codex titles writeCmd's tool call.
const writeTitle = "/bin/bash -c '" + writeCmd + "'"

// writeCall is an exec_command call that writes w.txt in the workspace and
// waits for it, so its exit code comes back in one answer.
func writeCall(id string) sm.Item {
	args, _ := json.Marshal(map[string]any{"cmd": writeCmd, "yield_time_ms": 30000})
	return sm.FunctionCall(id, "exec_command", string(args))
}

// modeRig is one engine on real Codex in its workspace-write sandbox;
// alice is the approver (an admin), bob only allowed.
func modeRig(t *testing.T, script sm.Script) *projectRig {
	t.Helper()
	h := codextest.StartWith(t, script, sm.HomeOptions{})
	st := testenv.OpenStores(t, testenv.Prefix(t, "botmode"))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: quietLog(),
		Sandbox: "workspace-write", ApprovalPolicy: "on-request"})
	t.Cleanup(func() { _ = agent.Close() })
	chat := chattest.New()
	e, err := bot.New(bot.Config{
		Replica: "replica-a", WorkspaceRoot: t.TempDir(), UpdateInterval: time.Millisecond, Logger: quietLog(),
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Access: bot.Access{AllowUsers: []string{"alice", "bob"}, Admins: []string{"alice"}},
	}, testenv.EngineStore(st), agent, chat)
	if err != nil {
		t.Fatal(err)
	}
	run(t, e)
	return &projectRig{h: h, st: st, chat: chat, e: e}
}

// /mode lists and switches the conversation's mode without reaching the
// model; full is refused to a non-approver; in read-only a write fails
// inside Codex's sandbox and the card's header says the mode; back in
// workspace the same write succeeds and the card has no header.
func TestModeCommand(t *testing.T) {
	r := modeRig(t, sm.Sequence(
		sm.Reply(writeCall("call_ro")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Tried.")),
		sm.Reply(writeCall("call_ws")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Wrote.")),
		sm.Reply(writeCall("call_pushed")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Tried as scheduled.")),
	))
	group := chattest.Room("wrkChat")
	list := "**Modes** (▶ this conversation's)\n" +
		"- `read-only` — the agent may look, not change: its commands cannot write the workspace, and no request to leave the sandbox is granted\n" +
		"- ▶ `workspace` — the default: its commands write the workspace; leaving the sandbox needs an approval\n" +
		"- `full` — an approver's choice: requests to leave the sandbox are granted without asking, until `/new`%s\n" +
		"\n`/mode <name>` switches this conversation's mode."
	for i, c := range []struct{ user, say, want string }{
		{"bob", "/mode", fmt.Sprintf(list, " (you are not an approver, so you cannot pick it)")},
		{"alice", "/mode", fmt.Sprintf(list, "")},
		{"bob", "/mode full", "⛔ Only an approver may switch this conversation to `full` mode: it grants the agent's requests to leave the sandbox without asking. The mode is unchanged."},
		{"bob", "/mode yolo", "`yolo` is not a mode; pick one of `read-only`, `workspace`, `full`."},
		{"bob", "/mode READ-ONLY", "Mode set to `read-only` for this conversation: the agent may look, not change: its commands cannot write the workspace, and no request to leave the sandbox is granted. Its next turn runs in it."},
		{"bob", "/mode read-only", "This conversation is in `read-only` mode already."},
	} {
		if got := r.say(t, fmt.Sprint("m", i), group, c.user, c.say); got != c.want {
			t.Errorf("%s %s = %q, want %q", c.user, c.say, got, c.want)
		}
	}
	if got, want := r.say(t, "s1", group, "bob", "/status"), "\n- mode: `read-only` (this conversation's)"; !strings.HasSuffix(got, want) {
		t.Errorf("/status = %q, want it to end %q", got, want)
	}
	r.turn(t, "t1", group, "bob", "write it")
	if got := r.say(t, "m9", group, "alice", "/mode workspace"); got != "Mode set to `workspace` for this conversation: the default: its commands write the workspace; leaving the sandbox needs an approval. Its next turn runs in it." {
		t.Errorf("/mode workspace = %q", got)
	}
	r.turn(t, "t2", group, "bob", "write again")
	// A schedule's turn without a mode of its own runs read-only, whatever
	// the conversation chose.
	if _, err := r.e.Push(t.Context(), bot.Pushed{ID: "schedule:tests:1", Conversation: group, User: "wecodex-schedule-tests",
		Text: "scheduled write", Channel: chattest.Name}); err != nil {
		t.Fatal(err)
	}
	r.chat.WaitForCount(t, group, "finish", 3)

	reqs := r.h.Server.ModelRequests()
	if len(reqs) != 6 {
		t.Fatalf("model requests: %d, want 6 (no command reaches the model); events %q", len(reqs), r.chat.Events(group))
	}
	for call, want := range map[string]string{
		"call_ro":     "/bin/bash: line 1: w.txt: Read-only file system\nexit=1\n",
		"call_ws":     "exit=0\n",
		"call_pushed": "/bin/bash: line 1: w.txt: Read-only file system\nexit=1\n",
	} {
		if got := modelGot(t, reqs, call); got != want {
			t.Errorf("%s: the model got %q, want %q", call, got, want)
		}
	}
	_, cwd, err := r.st.Conversation(t.Context(), group.Key())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "w.txt")); err != nil || string(b) != "changed\n" {
		t.Errorf("w.txt = %q, %v; want the workspace turn's write", b, err)
	}
	var cards []string
	for _, l := range r.chat.Events(group) {
		if strings.HasPrefix(l, "card: ") {
			cards = append(cards, l)
		}
	}
	want := []string{
		"card: header: 🔒 Mode: read-only — the agent may look, not change | write it | [tool: " + writeTitle + " (completed)] | Tried. | done",
		"card: write again | [tool: " + writeTitle + " (completed)] | Wrote. | done",
		"card: header: 🔒 Mode: read-only — the agent may look, not change | scheduled write | [tool: " + writeTitle + " (completed)] | Tried as scheduled. | done",
	}
	if !slices.Equal(cards, want) {
		t.Errorf("cards =\n%q\nwant\n%q", cards, want)
	}
}

var outputRe = regexp.MustCompile(`(?s)\nOutput:\n(.*)\z`)

// modelGot is the output the model got back for callID.
func modelGot(t *testing.T, reqs []sm.Request, callID string) string {
	t.Helper()
	for _, r := range reqs {
		if out, ok := r.CallOutput(callID); ok {
			if m := outputRe.FindStringSubmatch(out); m != nil {
				return m[1]
			}
			return "unparsed: " + out
		}
	}
	return "never reported"
}
