package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/procgroup"
	"github.com/wecodex/wecodex/projects"
)

// WeCom ⇄ terminal: after a turn from WeCom in a git project, `wecodex
// sessions` lists the conversation with its project, worktree, branch,
// thread and last use and prints the command that continues the thread in
// a terminal. Running that command (as `codex exec resume`, the real Codex
// on the scripted model, with the CODEX_HOME and directory the command
// itself sets) adds a turn, in the worktree; the next WeCom message's model
// request carries that turn in its history, while serve kept running all
// along.
func TestE2ESessionsContinueInTheTerminal(t *testing.T) {
	e := newE2E(t, sm.ByPrompt(map[string][]sm.Response{
		"start in wecom":    {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Started on the phone."))},
		"from the terminal": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Answered in the terminal."))},
		"back in wecom":     {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Back on the phone."))},
	}))
	// The bot lets go of an idle thread after a second (Codex lets no other
	// process resume a thread it holds), and says so in its debug log.
	e.env = []string{"WECODEX_AGENT_CODEX_IDLE_UNLOAD=1s", "WECODEX_LOG_LEVEL=debug"}
	e.extra = fmt.Sprintf("projects:\n  api:\n    git: %q\n    ref: main\n    users: [alice]\n", gitRemote(t))
	cfg := filepath.Join(t.TempDir(), "wecodex.yaml")
	if err := os.WriteFile(cfg, []byte(e.config(cfg, "5m30s")), 0o600); err != nil {
		t.Fatal(err)
	}
	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	ctx := within(t, 3*time.Minute)
	ask(t, ctx, b, "m1", "start in wecom", "Started on the phone.")

	out := sessions(t, e, cfg)
	thread := field(t, out, "thread")
	worktree, _ := projectDirs(e.workspace, "api", "single:alice")
	resume := fmt.Sprintf("cd %s && CODEX_HOME=%s %s resume %s", worktree, e.h.Home, e.h.Bin, thread)
	for _, want := range []string{"single:alice\n", "  project:  api\n", "  worktree: " + worktree + "\n",
		"  branch:   " + projects.Branch("single:alice") + "\n", "  continue: " + resume + "\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("wecodex sessions printed\n%s\nwant a line %q", out, want)
		}
	}
	if used := field(t, out, "last use"); !strings.HasSuffix(used, "Z by alice") {
		t.Fatalf("last use %q, want a UTC time and alice", used)
	}
	if filtered := sessions(t, e, cfg, "--conversation", "single:bob"); filtered != "" {
		t.Fatalf("--conversation single:bob printed %q, want nothing", filtered)
	}
	if filtered := sessions(t, e, cfg, "--project", "web"); filtered != "" {
		t.Fatalf("--project web printed %q, want nothing", filtered)
	}
	if filtered := sessions(t, e, cfg, "--project", "api"); filtered != out {
		t.Fatalf("--project api printed\n%s\nwant alice's conversation\n%s", filtered, out)
	}

	b.logs.waitFor(t, ctx, "codex thread unloaded after idling", map[string]any{"thread": thread})

	// The printed command, with exec's non-interactive resume: it runs in
	// a shell with no CODEX_HOME of its own, so only the command sets it.
	line := strings.Replace(resume, " resume ", " exec --skip-git-repo-check resume ", 1) + " 'from the terminal'"
	term := exec.CommandContext(ctx, "sh", "-c", line)
	for _, kv := range e.h.Env {
		if !strings.HasPrefix(kv, "CODEX_HOME=") && !strings.HasPrefix(kv, "WECODEX_") {
			term.Env = append(term.Env, kv)
		}
	}
	procgroup.Set(term)
	var termOut bytes.Buffer
	term.Stdout, term.Stderr = &termOut, &termOut
	if err := term.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, termOut.String())
	}
	if !strings.Contains(termOut.String(), "Answered in the terminal.") {
		t.Fatalf("the terminal's turn printed\n%s\nwant the scripted answer", termOut.String())
	}
	if r := firstRequest(t, e.h.Server.ModelRequests(), "from the terminal"); !strings.Contains(string(r.Body), "<cwd>"+worktree+"</cwd>") {
		t.Fatalf("the terminal's model request does not come from the worktree %s", worktree)
	}

	ask(t, ctx, b, "m2", "back in wecom", "Back on the phone.")
	reqs := e.h.Server.ModelRequests()
	last := reqs[len(reqs)-1]
	history := messageTexts(t, last.Body)
	for _, want := range []string{"start in wecom", "Started on the phone.", "from the terminal", "Answered in the terminal.", "back in wecom"} {
		if !containsText(history, want) {
			t.Fatalf("the last model request's history %q lacks %q", history, want)
		}
	}
}

// ask sends alice's message and waits until its card finishes with answer.
func ask(t *testing.T, ctx context.Context, b *botProc, id, text, answer string) {
	t.Helper()
	s, err := b.sim.Send(ctx, wecomtest.Message{MsgID: id, From: "alice", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if last, seen := follow(t, ctx, b.sim, s.ID); last.Content != answer {
		t.Fatalf("%q was answered %q, want %q; frames %q", text, last.Content, answer, seen)
	}
}

// sessions runs `wecodex sessions` on cfg with the bot's environment and
// returns what it printed.
func sessions(t *testing.T, e *e2e, cfg string, args ...string) string {
	t.Helper()
	cmd := exec.Command(wecodexBin, append([]string{"sessions", "--config", cfg}, args...)...)
	cmd.Env = e.serveEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("wecodex sessions: %v\n%s", err, errOut.String())
	}
	return out.String()
}

// field is the value of the "  name: value" line of sessions' output.
func field(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "  "+name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("wecodex sessions printed no %s line:\n%s", name, out)
	return ""
}

// messageTexts is the text of every message item of a Responses request
// body, in order: the history the model was given.
func messageTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("decode model request: %v", err)
	}
	var out []string
	for _, it := range req.Input {
		if it.Type != "message" && it.Role == "" {
			continue
		}
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(it.Content, &parts) == nil {
			for _, p := range parts {
				out = append(out, it.Role+": "+p.Text)
			}
		}
	}
	return out
}

func containsText(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}
