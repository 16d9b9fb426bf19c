package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// writeItCmd writes w.txt in the workspace and says how it went, so the
// model's next request shows whether the sandbox let it.
const writeItCmd = "exec 2>&1; echo changed > w.txt; echo exit=$?"

// reviewFindings is what the scripted model answers Codex's reviewer.
const reviewFindings = `{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Changing one to two is fine.","overall_confidence_score":0.9}`

func settingScript() sm.Script {
	args, _ := json.Marshal(map[string]any{"cmd": writeItCmd, "yield_time_ms": 30000})
	used := sm.Usage{InputTokens: 1000, CachedInputTokens: 200, OutputTokens: 50}
	return sm.ByPrompt(map[string][]sm.Response{
		"write it": {
			sm.Reply(sm.FunctionCall("call_ro", "exec_command", string(args))).WithUsage(used),
			sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Tried.")).WithUsage(used),
		},
		"Review the current code changes": {sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, sm.SplitWords(reviewFindings)...))},
	})
}

// withSettings is e's serve with its per-conversation sandbox
// (agent.codex.sandbox: workspace-write) and agent.models set; alice may
// use the bot and approves nothing.
func withSettings(e *e2e) *e2e {
	e.sandbox = "workspace-write"
	e.approval = "approval: deny\n  models: [gpt-5.5, other]"
	return e
}

// settingStep is one message of checkSettingCommands: a command, whose
// answer must be want exactly, or a turn, whose end must hold each of holds.
type settingStep struct {
	text   string
	want   string
	turn   bool
	holds  []string
	before func(t *testing.T)
}

// checkSettingCommands drives /model, /effort, /mode, /status, /usage and
// /review on ch, checking each answer as WeCom received it: what they set
// reaches the next turn (its model, its effort, its sandbox), full mode is
// refused to alice (no approver), someone not allowed is refused each
// command with the reason, and no command reaches the model as a prompt.
// /undo and /compact: checkControlCommands.
func checkSettingCommands(t *testing.T, ctx context.Context, e *e2e, ch chatChannel) {
	t.Helper()
	readOnly := "🔒 Mode: read-only — the agent may look, not change"
	turnHolds := []string{readOnly, "Tried."}
	steps := []settingStep{
		{text: "/model", want: "**Models** (▶ this conversation's)\n- `gpt-5.5`\n- `other`\n\nThis conversation uses Codex's default.\n\n`/model <name>` picks one for this conversation."},
		{text: "/model gpt-9", want: "`gpt-9` is not offered here; pick one of `gpt-5.5`, `other`."},
		{text: "/model other", want: "Model set to `other` for this conversation: its next turn uses it."},
		{text: "/effort high", want: "Reasoning effort set to `high` for this conversation: its next turn uses it."},
		{text: "/mode full", want: "⛔ Only an approver may switch this conversation to `full` mode: it grants the agent's requests to leave the sandbox without asking. The mode is unchanged."},
		{text: "/mode read-only", want: "Mode set to `read-only` for this conversation: the agent may look, not change: its commands cannot write the workspace, and no request to leave the sandbox is granted. Its next turn runs in it."},
		{text: "/status", want: "**Status**\n- turn: idle\n- waiting: 0\n- session: none yet (the next message starts one)\n- model: `other` (this conversation's)\n- effort: `high` (this conversation's)\n- mode: `read-only` (this conversation's)"},
		{text: "write it", turn: true, holds: turnHolds},
		{text: "/mode workspace", want: "Mode set to `workspace` for this conversation: the default: its commands write the workspace; leaving the sandbox needs an approval. Its next turn runs in it."},
		{text: "/usage", want: "**Usage**\n- this session: 2100 tokens (input 2000, cached 400, output 100, reasoning 0)\n- account rate limits: Codex reports none for this account\n- your limits: none set"},
		{text: "/review", turn: true, holds: []string{"Changing one to two is fine."}, before: func(t *testing.T) {
			gitChange(t, bot.WorkspaceDir(e.workspace, ch.conv))
		}},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before(t)
		}
		if !s.turn {
			if got := ch.say(t, ctx, s.text); got != s.want {
				t.Errorf("%s answered\n%q\nwant\n%q", s.text, got, s.want)
			}
			continue
		}
		got := ch.turn(t, ctx, s.text)
		for _, want := range s.holds {
			if !strings.Contains(got, want) {
				t.Errorf("%s's turn ended\n%q\nwant it to hold %q", s.text, got, want)
			}
		}
		waitLeaseFree(t, ctx, e, ch.conv)
	}
	// Someone not allowed gets the reason for every command, in her chat.
	for _, text := range []string{"/model other", "/effort low", "/mode workspace", "/usage", "/review", "/compact", "/undo", "/steer x", "/sessions"} {
		if got, want := ch.stranger(t, ctx, text), "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."; got != want {
			t.Errorf("mallory's %s answered %q, want %q", text, got, want)
		}
	}
	checkSettingRequests(t, e)
	if _, err := os.Stat(filepath.Join(bot.WorkspaceDir(e.workspace, ch.conv), "w.txt")); !os.IsNotExist(err) {
		t.Errorf("w.txt after the read-only turn: %v, want it never written", err)
	}
}

// checkSettingRequests checks the model's requests: the write turn's two,
// with the chosen model and effort, its write refused by the read-only
// sandbox; Codex's reviewer's one; nothing else.
func checkSettingRequests(t *testing.T, e *e2e) {
	t.Helper()
	reqs := e.h.Server.ModelRequests()
	var asked []string
	for _, r := range reqs {
		asked = append(asked, r.UserText)
	}
	if len(reqs) != 3 || asked[0] != "write it" || asked[1] != "write it" || !strings.HasPrefix(asked[2], "Review the current code changes") {
		t.Fatalf("the model was asked %q, want the write turn's two and the review's: a command reached it", asked)
	}
	for _, r := range reqs[:2] {
		if r.Model != "other" || r.Effort != "high" {
			t.Errorf("the write turn asked model %q at effort %q, want other at high", r.Model, r.Effort)
		}
	}
	if out, ok := reqs[1].CallOutput("call_ro"); !ok || !strings.Contains(out, "w.txt: Read-only file system\nexit=1") {
		t.Errorf("in read-only the write got back %q, want the sandbox's refusal", out)
	}
}

// gitChange makes dir a git repository with one commit and one
// uncommitted change, for /review to look at.
func gitChange(t *testing.T, dir string) {
	t.Helper()
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "init", "-q")
	write("one\n")
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "commit", "-qm", "first")
	write("two\n")
}

func TestE2ESettingCommandsOnTheWebhook(t *testing.T) {
	e := withSettings(newE2E(t, settingScript()))
	b := e.serve(t, "5m30s")
	checkSettingCommands(t, within(t, 3*time.Minute), e, webhookChat(b))
}

func TestE2ESettingCommandsOnTheLongConnection(t *testing.T) {
	e, srv := newLongConnE2E(t, settingScript())
	a := withSettings(e).serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)
	subscribedBy(t, ctx, srv, a)
	checkSettingCommands(t, ctx, e, longConnChat(srv))
}

func TestE2ESettingCommandsOnTheApp(t *testing.T) {
	e := withSettings(newE2E(t, settingScript()))
	_, api, cb := serveApp(t, e)
	checkSettingCommands(t, within(t, 3*time.Minute), e, appChat(api, cb))
}

// Full mode on serve's confined threads: bob (no approver) is refused it;
// once alice (an admin) picks it, a request to leave the sandbox runs
// without anyone asked, the card's header saying so; /new gives the
// conversation its default mode back.
func TestE2EFullModeGrantsWithoutAsking(t *testing.T) {
	e := newE2EIn(t, approvalScript("call_1"), "workspace-write")
	e.approval = "approval: ask"
	e.access = "allow_users: [alice, bob]\n  admins: [alice]"
	b := e.serve(t, "5m30s")
	ctx := within(t, 2*time.Minute)
	for _, c := range []struct{ from, text, want string }{
		{"bob", "/mode full", "⛔ Only an approver may switch this conversation to `full` mode: it grants the agent's requests to leave the sandbox without asking. The mode is unchanged."},
		{"alice", "/mode full", "Mode set to `full` for this conversation: an approver's choice: requests to leave the sandbox are granted without asking, until `/new`. Its next turn runs in it."},
	} {
		if got := say(t, ctx, b.sim, c.from, c.text); got != c.want {
			t.Fatalf("%s's %s = %q, want %q", c.from, c.text, got, c.want)
		}
	}
	s, err := b.sim.Send(ctx, wecomtest.Message{From: "bob", ChatID: approvalChat, Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	last, seen := follow(t, ctx, b.sim, s.ID)
	want := "<think>\n✅ /bin/bash -c '" + approvalCmd + "'\n\nℹ️ approved: /bin/bash -c '" + approvalCmd + "'\n</think>\n\n" +
		"⚠️ Mode: full — requests to leave the sandbox are granted without asking\n\nAll done."
	if last.Content != want {
		t.Errorf("the turn ended\n%s\nwant\n%s", last.Content, want)
	}
	for _, f := range seen {
		if strings.Contains(f, "Waiting for approval") {
			t.Errorf("a frame asked for an approval in full mode: %q", f)
		}
	}
	if n := e.marks(t); n != 1 {
		t.Errorf("the escalated command ran %d times, want 1", n)
	}
	if got := say(t, ctx, b.sim, "alice", "/new"); got != "OK — the next message starts a fresh session." {
		t.Errorf("/new = %q", got)
	}
	if got, want := say(t, ctx, b.sim, "bob", "/status"), "\n- mode: `workspace` (the default)"; !strings.HasSuffix(got, want) {
		t.Errorf("/status after /new = %q, want it to end %q", got, want)
	}
}
