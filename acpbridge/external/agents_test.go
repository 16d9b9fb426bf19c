package external_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// ZedCodexACPBinEnv points tests at the Rust @zed-industries/codex-acp
// (its Linux binary); the Makefile installs it into .tools/zed-codex-acp.
const ZedCodexACPBinEnv = "WECODEX_TEST_ZED_CODEX_ACP_BIN"

// zedCodexACPBin returns the zed codex-acp binary. Outside CI a missing
// binary skips the test (it is 230 MB); in CI (CI set) it fails it.
func zedCodexACPBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv(ZedCodexACPBinEnv)
	if p == "" {
		p = filepath.Join(moduleRoot(t), ".tools", "zed-codex-acp", "node_modules", ".bin", "codex-acp-linux-x64")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("zed codex-acp not installed: %v (run `make tools`)", err)
		}
		t.Skipf("zed codex-acp not installed (%v): `make tools` installs it, or set %s", err, ZedCodexACPBinEnv)
	}
	return p
}

// realAgent is a published ACP agent for Codex, run on the scripted model.
type realAgent struct {
	name string
	bin  func(*testing.T) string
	// phased: the agent sends a message's phase to wecodex, so commentary
	// reaches the progress section; otherwise it reaches the body.
	phased bool
}

var realAgents = []realAgent{
	{name: "codex-acp 2.6.0", bin: codexACPBin, phased: true},
	{name: "zed codex-acp 0.16.0", bin: zedCodexACPBin, phased: false},
}

// logLines is a slog destination a test can read back (and mirror to t.Log).
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *logLines) matching(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// startRealAgent runs agent on h with wecodex's defaults: no capability and
// no environment chosen here, only Codex's location, the scripted home and
// extraEnv (agent.acp.env).
func startRealAgent(t *testing.T, ctx context.Context, agent realAgent, h *codextest.Harness, extraEnv ...string) (*external.Agent, *logLines) {
	t.Helper()
	logs := &logLines{}
	extraEnv = append([]string{"CODEX_PATH=" + h.Bin, "PATH=" + bundledBwrapDir(t, h.Bin) + string(os.PathListSeparator) + os.Getenv("PATH")}, extraEnv...)
	a, err := external.New(ctx, external.Options{
		Command: []string{agent.bin(t)},
		Env:     bridgetest.HarnessEnv(h, extraEnv...),
		Log:     slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.Close()
		if t.Failed() {
			t.Logf("agent log:\n%s", logs.matching(""))
		}
	})
	return a, logs
}

// bundledBwrapDir is the directory of the bubblewrap the pinned Codex
// ships beside its native binary. zed's codex-acp embeds Codex but ships no
// bubblewrap and looks for one on PATH; without it every sandboxed command
// fails at once (exit 101, "bubblewrap is unavailable"), and zed then
// reported the command's start only with RUST_BACKTRACE=1 in its
// environment, which the allow-listed one rightly no longer passes on.
func bundledBwrapDir(t *testing.T, codexBin string) string {
	t.Helper()
	launcher, err := filepath.EvalSymlinks(codexBin)
	if err != nil {
		t.Fatalf("resolve %s: %v", codexBin, err)
	}
	// <node_modules>/@openai/codex/bin/codex.js beside
	// <node_modules>/@openai/codex-<platform>/vendor/<triple>/codex-resources/bwrap.
	scope := filepath.Dir(filepath.Dir(filepath.Dir(launcher)))
	found, _ := filepath.Glob(filepath.Join(scope, "codex-*", "vendor", "*", "codex-resources", "bwrap"))
	if len(found) != 1 {
		t.Fatalf("the pinned Codex's bundled bwrap under %s: found %q, want one", scope, found)
	}
	return filepath.Dir(found[0])
}

const unphasedLog = "agent sends message text without a phase"

// titlePrompt starts the request codex-acp 2.6.0 makes, unasked, after a new
// session's first turn to title it (fire and forget: it may come after the
// turn's response, or not before the test ends).
const titlePrompt = "generate a very short title"

// answeringTitles answers codex-acp's title requests and leaves every other
// request to script.
func answeringTitles(script sm.Script) sm.Script {
	return sm.ScriptFunc(func(req *sm.Request) (sm.Response, error) {
		if strings.Contains(req.UserText, titlePrompt) {
			return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Listing an empty directory")), nil
		}
		return script.Next(req)
	})
}

// turnRequests counts the model requests of the turn itself.
func turnRequests(h *codextest.Harness) int {
	n := 0
	for _, r := range h.Server.ModelRequests() {
		if !strings.Contains(r.UserText, titlePrompt) {
			n++
		}
	}
	return n
}

// agentEnviron reads the running agent's environment from /proc.
func agentEnviron(t *testing.T, a *external.Agent) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", a.PID()))
	if err != nil {
		t.Fatalf("read the agent's environment: %v", err)
	}
	return strings.Split(string(b), "\x00")
}

// TestRealAgentsRouteByPhase: commentary and the answer of a turn with a
// command, through each published agent with wecodex's defaults. Where the
// agent sends a phase, commentary is a thought; where it sends none, all text
// is answer and the log says so once, naming the agent.
func TestRealAgentsRouteByPhase(t *testing.T) {
	for _, agent := range realAgents {
		t.Run(agent.name, func(t *testing.T) {
			h := codextest.Start(t, answeringTitles(sm.Sequence(
				sm.Reply(
					sm.Message(sm.PhaseCommentary, "I will list the files."),
					sm.ExecCommand("call_1", "echo hello-from-exec"),
				),
				sm.Reply(
					sm.Message(sm.PhaseCommentary, "Now I know."),
					sm.Message(sm.PhaseFinalAnswer, "There is nothing here yet."),
				),
			)))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			a, logs := startRealAgent(t, ctx, agent, h)
			id, err := a.NewSession(ctx, h.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			rec := &bridgetest.Recorder{Permit: bridgetest.Deciding(acpbridge.ApprovalAllow)}
			reason, err := a.Prompt(ctx, id, acpbridge.TextPrompt("What is in this directory?"), rec)
			if err != nil || reason != acp.StopReasonEndTurn {
				t.Fatalf("prompt = %q, %v; updates %q", reason, err, rec.Lines())
			}
			want := []string{
				"thought: I will list the files.",
				"tool_call: echo hello-from-exec [execute] in_progress",
				"thought: Now I know.",
				"message: There is nothing here yet.",
			}
			if !agent.phased {
				// All of it is answer; without message ids the last two
				// messages read as one.
				want = []string{
					"message: I will list the files.",
					"tool_call: echo hello-from-exec [execute] in_progress",
					"message: Now I know.There is nothing here yet.",
				}
			}
			// The command's updates (output chunks, and a status that was
			// completed, none, or under load once failed for zed) are the
			// agent's to choose; its start must arrive.
			got := rec.Lines("thought", "message", "tool_call", "notice")
			if !slices.Equal(got, want) {
				t.Errorf("updates\n got %q\nwant %q\n all %q", got, want, rec.Lines())
			}
			lines := logs.matching(unphasedLog)
			if agent.phased && len(lines) != 0 {
				t.Errorf("a phased agent logged %q", lines)
			}
			if !agent.phased && (len(lines) != 1 || !strings.Contains(lines[0], `agent="codex-acp 0.16.0"`)) {
				t.Errorf("log lines about missing phases: %q; want one naming codex-acp 0.16.0", lines)
			}
			if n := turnRequests(h); n != 2 {
				t.Errorf("%d model requests for the turn; want 2", n)
			}
			// Prompt suggestions (an extra request after a turn, which may
			// come after this test looked) are off in the agent's environment.
			if env := agentEnviron(t, a); !slices.Contains(env, "CODEX_ACP_PROMPT_SUGGESTIONS=false") {
				t.Errorf("agent environment lacks CODEX_ACP_PROMPT_SUGGESTIONS=false")
			}
		})
	}
}

// TestRealAgentsApproval: a command that needs approval reaches the turn's
// sink through each agent with wecodex's defaults, and the decision is
// honoured: an allowed command runs, a denied one does not. codex-acp
// 2.6.0's default mode ("Auto review") would hand the approval to a model
// reviewer and never ask the client; wecodex starts it in "workspace-write".
// The decision shows on the turn once: the sink reports it (bot's does,
// naming who decided), so the agent adds no line; with decision "" the sink
// is the deny policy's, which notes each denial.
func TestRealAgentsApproval(t *testing.T) {
	for _, agent := range realAgents {
		for _, decision := range []string{acpbridge.ApprovalAllow, acpbridge.ApprovalDeny, ""} {
			t.Run(agent.name+"/"+decision, func(t *testing.T) {
				checkApproval(t, agent, decision)
			})
		}
	}
}

func checkApproval(t *testing.T, agent realAgent, decision string) {
	h := codextest.StartWith(t, answeringTitles(sm.Sequence(
		sm.Reply(sm.EscalatedExecCommand("call_1", "touch approved.txt", "needs to create a file")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")),
	)), sm.HomeOptions{ApprovalPolicy: "on-request"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var asked []string
	rec := &bridgetest.Recorder{Permit: func(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		mu.Lock()
		asked = append(asked, bridgetest.Deref(req.ToolCall.Title))
		mu.Unlock()
		return acpbridge.Policy(decision).Decide(req)
	}}
	// No decision: the sink is the deny policy's, which notes each denial.
	var sink acpbridge.Sink = rec
	if decision == "" {
		sink = acpbridge.Policy(acpbridge.ApprovalDeny).Wrap(rec)
	}
	a, _ := startRealAgent(t, ctx, agent, h)
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	// A denied command ends the turn (Codex declines it and stops, in both
	// agents, measured); an allowed one runs and the answer follows.
	allowed := decision == acpbridge.ApprovalAllow
	wantReason, wantAnswer, wantRequests := acp.StopReasonCancelled, []string(nil), 1
	if allowed {
		wantReason, wantAnswer, wantRequests = acp.StopReasonEndTurn, []string{"message: Done."}, 2
	}
	reason, err := a.Prompt(ctx, id, acpbridge.TextPrompt("Create approved.txt"), sink)
	if err != nil || reason != wantReason {
		t.Fatalf("prompt = %q, %v, want %q; updates %q", reason, err, wantReason, rec.Lines())
	}
	mu.Lock()
	defer mu.Unlock()
	if decision != "" && (len(asked) != 1 || !strings.Contains(asked[0], "touch approved.txt")) {
		t.Errorf("permission requests %q; want one for touch approved.txt", asked)
	}
	_, statErr := os.Stat(filepath.Join(h.Workspace, "approved.txt"))
	if ran := statErr == nil; ran != allowed {
		t.Errorf("%s: the command ran = %v (stat: %v)", decision, ran, statErr)
	}
	if got := rec.Lines("message"); !slices.Equal(got, wantAnswer) {
		t.Errorf("answer %q, want %q", got, wantAnswer)
	}
	var wantNotes []string
	if decision == "" {
		wantNotes = []string{"notice warning: declined: touch approved.txt"}
	}
	if got := decisionNotes(rec.Lines("notice info", "notice warning")); !slices.Equal(got, wantNotes) {
		t.Errorf("decision notices %q, want %q", got, wantNotes)
	}
	for _, r := range h.Server.ModelRequests() {
		if strings.Contains(r.UserText, "approval assessme") {
			t.Errorf("the approval went to a model reviewer: %.80q", r.UserText)
		}
	}
	if n := turnRequests(h); n != wantRequests {
		t.Errorf("%d model requests for the turn; want %d", n, wantRequests)
	}
}

// decisionNotes keeps the notices that report a permission decision.
func decisionNotes(lines []string) []string {
	var out []string
	for _, l := range lines {
		_, text, _ := strings.Cut(l, ": ")
		if strings.HasPrefix(text, "approved: ") || strings.HasPrefix(text, "declined: ") || strings.HasPrefix(text, "cancelled: ") {
			out = append(out, l)
		}
	}
	return out
}

// TestRealAgentsLongAnswer: a 5,000-delta answer arrives whole, in order.
func TestRealAgentsLongAnswer(t *testing.T) {
	const n = 5000
	deltas := make([]string, n)
	for i := range deltas {
		deltas[i] = fmt.Sprintf("d%05d ", i)
	}
	for _, agent := range realAgents {
		t.Run(agent.name, func(t *testing.T) {
			h := codextest.Start(t, answeringTitles(sm.Sequence(sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, deltas...)))))
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			a, _ := startRealAgent(t, ctx, agent, h)
			id, err := a.NewSession(ctx, h.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			rec := &bridgetest.Recorder{}
			if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt("Write the long answer."), rec); err != nil {
				t.Fatal(err)
			}
			got := rec.Lines("message")
			if want := "message: " + strings.Join(deltas, ""); len(got) != 1 || got[0] != want {
				t.Errorf("answer: %d messages; first differs from the %d-byte answer", len(got), len(want))
			}
			// zed's codex-acp never exits on EOF: Close must stop it anyway.
			pid := a.PID()
			a.Close()
			if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
				t.Errorf("agent %d after Close: kill(0) = %v, want ESRCH", pid, err)
			}
		})
	}
}
