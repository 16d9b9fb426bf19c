package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// probe is one command a conversation's model runs, and what the model must
// get back: the exit code and the exact output.
type probe struct {
	cmd  string
	code int
	out  string
}

// waitedExec is an exec_command call that waits up to 30 s (Codex's cap)
// for the command to finish, so its exit code comes back in the same answer
// however loaded the machine is.
func waitedExec(callID, cmd string) sm.Item {
	args, _ := json.Marshal(map[string]any{"cmd": cmd, "yield_time_ms": 30000})
	return sm.FunctionCall(callID, "exec_command", string(args))
}

// probeReplies is the model's side of a turn that runs each probe in turn,
// then answers.
func probeReplies(prefix string, probes []probe) []sm.Response {
	var rs []sm.Response
	for i, p := range probes {
		rs = append(rs, sm.Reply(waitedExec(fmt.Sprintf("%s_%d", prefix, i), p.cmd)))
	}
	return append(rs, sm.Reply(sm.Message(sm.PhaseFinalAnswer, prefix+" probed.")))
}

var execResultRe = regexp.MustCompile(`(?s)\AChunk ID: \S+\nWall time: [0-9.]+ seconds\nProcess exited with code (-?\d+)\nOriginal token count: \d+\nOutput:\n(.*)\z`)

// checkProbes checks that the model got back each probe's exact exit code
// and output, as Codex reports a finished exec_command.
func checkProbes(t *testing.T, reqs []sm.Request, prefix string, probes []probe) {
	t.Helper()
	for i, p := range probes {
		id := fmt.Sprintf("%s_%d", prefix, i)
		var got string
		found := false
		for _, r := range reqs {
			if got, found = r.CallOutput(id); found {
				break
			}
		}
		if !found {
			t.Errorf("%s `%s`: the model never got its output back", id, p.cmd)
			continue
		}
		m := execResultRe.FindStringSubmatch(got)
		if m == nil {
			t.Errorf("%s `%s`: the model got %q, not a finished command's output", id, p.cmd, got)
			continue
		}
		if code, _ := strconv.Atoi(m[1]); code != p.code || m[2] != p.out {
			t.Errorf("%s `%s`:\n got exit %d, output %q\nwant exit %d, output %q", id, p.cmd, code, m[2], p.code, p.out)
		}
	}
}

// Two conversations, each running real commands through a real turn under
// wecodex's per-thread permission profile, while CODEX_HOME/config.toml says
// sandbox_mode = "danger-full-access": each reads and writes its own
// workspace and private TMPDIR and runs the system's tools; the other
// workspace and private TMPDIR are not there, CODEX_HOME, the config file
// and the state directory are denied, and what a command writes to a shared
// /tmp path never reaches it.
func TestE2ESandboxKeepsConversationsApart(t *testing.T) {
	// The probes name paths known only once the setup exists; the script
	// is set before the first message is sent.
	var script sm.Script
	e := newE2EIn(t, sm.ScriptFunc(func(r *sm.Request) (sm.Response, error) { return script.Next(r) }), "danger-full-access")
	e.sandbox = "workspace-write" // wecodex's, against the admin's config.toml

	root := e.workspace
	wsA, wsB := bot.WorkspaceDir(root, "single:alice"), bot.WorkspaceDir(root, "single:bob")
	tmpA, tmpB := bot.WorkspaceTmp(wsA), bot.WorkspaceTmp(wsB)
	auth := filepath.Join(e.h.Home, "auth.json")
	writeFile(t, auth, `{"OPENAI_API_KEY":"sk-not-for-conversations"}`)
	state := filepath.Join(e.h.ShellHome, ".local", "state", "wecodex")
	writeFile(t, filepath.Join(state, "kept"), "wecodex's own\n")
	cfg := filepath.Join(t.TempDir(), "wecodex.yaml")
	writeFile(t, cfg, e.config(cfg, "5m30s"))
	shared := filepath.Join(os.TempDir(), "wecodex-shared-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	t.Cleanup(func() { _ = os.Remove(shared) })

	aliceProbes := []probe{
		{"echo alice-notes > notes.txt && cat notes.txt", 0, "alice-notes\n"},
		{`echo scratch > "$TMPDIR/a" && cat "$TMPDIR/a" && echo "$TMPDIR"`, 0, "scratch\n" + tmpA + "\n"},
		{"sh -c 'echo toolchain' && git --version >/dev/null && echo git-ok", 0, "toolchain\ngit-ok\n"},
		// serve's environment has WECODEX_SCRIPTED_MODEL_API_KEY; the
		// commands' has no WECODEX_ variable at all.
		{"env | grep -c '^WECODEX_'", 1, "0\n"},
	}
	bobProbes := []probe{
		{"cat " + wsA + "/notes.txt", 1, "cat: " + wsA + "/notes.txt: No such file or directory\n"},
		{"cat ../*/notes.txt", 1, "cat: '../*/notes.txt': No such file or directory\n"},
		{"cat " + auth, 1, "cat: " + auth + ": Permission denied\n"},
		{"cat " + cfg, 1, "cat: " + cfg + ": Permission denied\n"},
		{"ls " + state, 2, "ls: cannot open directory '" + state + "': Permission denied\n"},
		{"cat " + tmpA + "/a", 1, "cat: " + tmpA + "/a: No such file or directory\n"},
		{"echo bob > " + wsA + "/from-bob.txt", 1, "/bin/bash: line 1: " + wsA + "/from-bob.txt: No such file or directory\n"},
		// The workspace root is under /tmp here, so /tmp cannot be denied
		// (see sandbox.New); outside the paths the profile names, a
		// command writes into a root of its own that is gone when it
		// exits. The check after the turns shows nothing reached /tmp.
		{"echo bob > " + shared + " && cat " + shared, 0, "bob\n"},
		{"cat " + shared, 1, "cat: " + shared + ": No such file or directory\n"},
		{"echo bob-notes > notes.txt && cat notes.txt && pwd", 0, "bob-notes\n" + wsB + "\n"},
		{`echo "$TMPDIR"`, 0, tmpB + "\n"},
	}
	script = sm.ByPrompt(map[string][]sm.Response{
		"alice probes": probeReplies("alice", aliceProbes),
		"bob probes":   probeReplies("bob", bobProbes),
	})

	b := serveWithEnv(t, cfg, e.serveEnv(), e.urls)
	ctx := within(t, 3*time.Minute)
	for _, m := range []wecomtest.Message{{From: "alice", Text: "alice probes"}, {From: "bob", Text: "bob probes"}} {
		s, err := b.sim.Send(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		last, seen := follow(t, ctx, b.sim, s.ID)
		if !strings.HasSuffix(last.Content, m.From+" probed.") {
			t.Fatalf("%s's final frame %q; frames seen %q", m.From, last.Content, seen)
		}
	}
	reqs := e.h.Server.ModelRequests()
	checkProbes(t, reqs, "alice", aliceProbes)
	checkProbes(t, reqs, "bob", bobProbes)
	for _, p := range []string{filepath.Join(wsA, "from-bob.txt"), shared} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("bob's write reached %s (stat: %v)", p, err)
		}
	}
	if got := readFile(t, filepath.Join(wsA, "notes.txt")); got != "alice-notes\n" {
		t.Errorf("alice's notes.txt = %q", got)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
