package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/procgroup"
)

// acpxBinEnv points the tests at acpx, an ACP client nobody here wrote; the
// Makefile installs it into .tools/acpx.
const acpxBinEnv = "WECODEX_TEST_ACPX_BIN"

// acpxBin is the pinned acpx. Without it the test skips, saying how to get
// it: `make test` installs it, so in CI it runs.
func acpxBin(t *testing.T) string {
	t.Helper()
	p := os.Getenv(acpxBinEnv)
	if p == "" {
		p = filepath.Join("..", "..", ".tools", "acpx", "node_modules", ".bin", "acpx")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("acpx is not installed (%s=%q: %v): run `make tools`", acpxBinEnv, os.Getenv(acpxBinEnv), err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// acpx runs one acpx command at a time against one agent command, in a home
// of its own (acpx keeps its session records and queue owners under
// ~/.acpx), and stops every queue owner it left when the test ends.
type acpx struct {
	t     *testing.T
	bin   string
	agent string // the agent command line acpx starts
	cwd   string
	home  string
	env   []string
}

func newACPX(t *testing.T, h *codextest.Harness, agent string, env ...string) *acpx {
	a := &acpx{t: t, bin: acpxBin(t), agent: agent, cwd: h.Workspace, home: h.ShellHome}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WECODEX_") {
			a.env = append(a.env, kv)
		}
	}
	a.env = append(append(a.env, h.CodexEnv()...), env...)
	t.Cleanup(a.stopOwners)
	return a
}

// run runs acpx with args (after the global flags) and returns its stdout;
// a non-zero exit fails the test unless allowFail.
func (a *acpx) run(ctx context.Context, allowFail bool, args ...string) (string, error) {
	a.t.Helper()
	// --ttl 1: a queue owner a prompt starts goes away a second after its
	// last request, instead of five minutes.
	full := append([]string{"--verbose", "--agent", a.agent, "--cwd", a.cwd, "--format", "json", "--approve-all", "--ttl", "1"}, args...)
	cmd := exec.CommandContext(ctx, a.bin, full...)
	cmd.Env, cmd.Dir = a.env, a.cwd
	procgroup.Set(cmd)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	a.t.Logf("acpx %s: exit %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errOut.String())
	if err != nil && !allowFail {
		a.t.Fatalf("acpx %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), err
}

// stopOwners kills the queue owners acpx recorded under its home (each is
// detached, the leader of its own process group) and waits for them to go.
func (a *acpx) stopOwners() {
	locks, _ := filepath.Glob(filepath.Join(a.home, ".acpx", "queues", "*.lock"))
	for _, l := range locks {
		data, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		var rec struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(data, &rec) != nil || rec.PID <= 0 {
			continue
		}
		_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if syscall.Kill(rec.PID, 0) != nil {
				break
			}
		}
		a.t.Logf("stopped acpx queue owner %s", strconv.Itoa(rec.PID))
	}
}

// acpxAgent is one ACP agent acpx drives over the same Codex.
type acpxAgent struct {
	name string
	// model is one the agent lists besides the configured one (zed's
	// embedded Codex lists others than the pinned Codex's catalogue).
	model string
	// defaultMode is the id of its workspace-writing mode.
	defaultMode string
	want        acpxResult
	// command is the agent command line and the environment it needs
	// besides the scripted Codex home.
	command func(t *testing.T, h *codextest.Harness) (string, []string)
}

var acpxAgents = []acpxAgent{
	{"wecodex codex-acp", "gpt-6.1-terra", "workspace", acpxResult{
		mode: "ok", model: "ok", effort: "ok", turn: "gpt-6.1-terra high, read-only", listed: true, reloaded: true,
		commands: "/mode, /model, /effort, /status, /review, /compact",
	}, func(t *testing.T, h *codextest.Harness) (string, []string) {
		return wecodexBin + " codex-acp", []string{"WECODEX_AGENT_CODEX_BIN=" + h.Bin, "WECODEX_AGENT_CODEX_APPROVAL_POLICY=on-request", "WECODEX_AGENT_CODEX_SANDBOX=workspace-write"}
	}},
	{"codex-acp 2.6.0", "gpt-6.1-terra", "workspace-write", acpxResult{
		mode: "ok", model: "ok", effort: "ok", turn: "gpt-6.1-terra high, read-only", listed: true, reloaded: true,
		// The $ ones are the pinned Codex's bundled skills.
		commands: "/plan, /mcp, /skills, /status, /review, /review-branch, /review-commit, /compact, /goal, /rename, /logout, " +
			"/$create-statusline, /$imagegen, /$openai-docs, /$review-agent, /$skill-creator, /$skill-installer",
	}, func(t *testing.T, h *codextest.Harness) (string, []string) {
		return peerBin(t, "WECODEX_TEST_CODEX_ACP_BIN", "codex-acp/node_modules/.bin/codex-acp"), []string{"CODEX_PATH=" + h.Bin, "CODEX_ACP_PROMPT_SUGGESTIONS=false"}
	}},
	{"zed codex-acp 0.16.0", "gpt-5.4", "auto", acpxResult{
		mode: "ok", model: "ok", effort: "ok", turn: "gpt-5.4 high, read-only", listed: true, reloaded: true,
		commands: "/review, /review-branch, /review-commit, /init, /compact, /logout",
	}, func(t *testing.T, h *codextest.Harness) (string, []string) {
		return peerBin(t, "WECODEX_TEST_ZED_CODEX_ACP_BIN", "zed-codex-acp/node_modules/.bin/codex-acp-linux-x64"), []string{"CODEX_PATH=" + h.Bin}
	}},
}

// peerBin is a published bridge the Makefile installs: $env, else its
// place under .tools (rel); like acpx, only a missing one skips.
func peerBin(t *testing.T, env, rel string) string {
	p := cmp.Or(os.Getenv(env), filepath.Join("..", "..", ".tools", rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed (%s=%q: %v): run `make tools`", rel, env, os.Getenv(env), err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// titlePrompt starts the request codex-acp 2.6.0 makes, unasked, after a
// session's first turn to title it.
const titlePrompt = "generate a very short title"

// TestACPXSessionControls: acpx, a client nobody here wrote, runs the same
// steps against each bridge on the real Codex: a new session, set-mode
// read-only, set model, set reasoning_effort high, one prompt, the agent's
// session list, and set-mode again from a new agent process. The
// model's request shows what took effect; the README's ACP feature table
// is what this test records.
func TestACPXSessionControls(t *testing.T) {
	for _, ag := range acpxAgents {
		t.Run(ag.name, func(t *testing.T) {
			script := sm.ScriptFunc(func(req *sm.Request) (sm.Response, error) {
				if strings.Contains(req.UserText, titlePrompt) {
					return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "A title")), nil
				}
				return sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Read-only here.")), nil
			})
			h := codextest.Start(t, script)
			ctx := within(t, 3*time.Minute)
			command, env := ag.command(t, h)
			x := newACPX(t, h, command, env...)
			x.run(ctx, false, "sessions", "new")
			var got acpxResult
			_, err := x.run(ctx, true, "set-mode", "read-only")
			got.mode = outcome(err)
			_, err = x.run(ctx, true, "set", "model", ag.model)
			got.model = outcome(err)
			_, err = x.run(ctx, true, "set", "reasoning_effort", "high")
			got.effort = outcome(err)
			out, _ := x.run(ctx, true, "prompt", "What may you do?")
			got.commands = advertised(t, out)
			list, _ := x.run(ctx, true, "sessions", "list")
			got.listed = listed(t, list, h.Workspace, "What may you do?")
			// With the prompt's queue owner gone, the next step starts the
			// agent again, which must load the session (it has a turn now).
			x.stopOwners()
			out, _ = x.run(ctx, true, "set-mode", ag.defaultMode)
			got.reloaded = strings.Contains(out, `"resumed":true`)
			for _, r := range h.Server.ModelRequests() {
				if !strings.Contains(r.UserText, titlePrompt) {
					got.turn = fmt.Sprintf("%s %s, %s", r.Model, r.Effort, r.Permissions())
				}
			}
			if got != ag.want {
				t.Errorf("acpx against %s\n got %+v\nwant %+v", ag.name, got, ag.want)
			}
		})
	}
}

// acpxResult is what one bridge did with acpx's steps: each control (mode,
// model, reasoning effort) "ok" or its error, the turn's model, effort and
// sandbox as the model's request shows them, the commands its first
// available_commands_update offered, whether
// `sessions list` (session/list) named the session, and whether a later
// step in a new agent process loaded it (session/load) instead of starting
// a fresh one.
type acpxResult struct {
	mode, model, effort, turn, commands string
	listed, reloaded                    bool
}

// advertised is the commands the first available_commands_update in acpx's
// JSON output offered, as "/name, /name"; "" when none came.
func advertised(t *testing.T, out string) string {
	for _, line := range strings.Split(out, "\n") {
		var m struct {
			Params struct {
				Update struct {
					SessionUpdate     string `json:"sessionUpdate"`
					AvailableCommands []struct {
						Name string `json:"name"`
					} `json:"availableCommands"`
				} `json:"update"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Params.Update.SessionUpdate != "available_commands_update" {
			continue
		}
		var names []string
		for _, c := range m.Params.Update.AvailableCommands {
			names = append(names, "/"+c.Name)
		}
		return strings.Join(names, ", ")
	}
	t.Logf("no available_commands_update in the prompt's output")
	return ""
}

func outcome(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

// listed reports whether acpx's `sessions list` JSON came from the agent
// (session/list, not acpx's own records) and names a session working in cwd
// titled title.
func listed(t *testing.T, out, cwd, title string) bool {
	var l struct {
		Source   string `json:"source"`
		Sessions []struct {
			Cwd   string `json:"cwd"`
			Title string `json:"title"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Logf("sessions list output is not JSON: %v", err)
		return false
	}
	for _, s := range l.Sessions {
		if l.Source == "agent" && s.Cwd == cwd && s.Title == title {
			return true
		}
	}
	return false
}
