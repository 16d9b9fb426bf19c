package codex

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// confinedExec is an exec_command call that waits for the command to finish
// (up to Codex's 30 s cap), so its exit code comes back in one answer.
func confinedExec(callID, cmd string) sm.Item {
	args, _ := json.Marshal(map[string]any{"cmd": cmd, "yield_time_ms": 30000})
	return sm.FunctionCall(callID, "exec_command", string(args))
}

var finishedRe = regexp.MustCompile(`(?s)\nProcess exited with code (-?\d+)\n.*?\nOutput:\n(.*)\z`)

// modelGot returns what the model got back for callID: "exit N: output".
func modelGot(t *testing.T, reqs []sm.Request, callID string) string {
	t.Helper()
	for _, r := range reqs {
		if out, ok := r.CallOutput(callID); ok {
			if m := finishedRe.FindStringSubmatch(out); m != nil {
				return "exit " + m[1] + ": " + m[2]
			}
			return "unfinished: " + out
		}
	}
	return "never reported"
}

// A thread's permission profile travels with thread/start and again with
// the thread/resume after the app-server died (Codex does not keep it with
// the thread), and outranks the admin's sandbox_mode = "danger-full-access"
// in CODEX_HOME/config.toml both times: the workspace is readable but for
// its denied *.env, and another directory is not there at all.
func TestConfinementOnStartAndAfterResume(t *testing.T) {
	ctx := testCtx(t)
	other := t.TempDir()
	secret := filepath.Join(other, "notes.txt")
	if err := os.WriteFile(secret, []byte("not yours\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	probe := "exec 2>&1; cat notes.txt; cat a.env; cat " + secret + "; echo x > " + other + "/x; echo $TMPDIR"
	script := sm.Sequence(
		sm.Reply(confinedExec("call_start", probe)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Probed.")),
		sm.Reply(confinedExec("call_resumed", probe)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Probed again.")),
	)
	var cwds []string // Confine runs on the caller's goroutine
	a, hs := newAgent(t, script, sm.HomeOptions{SandboxMode: "danger-full-access"}, Options{
		Sandbox: "danger-full-access", // ignored: Confine wins
		Confine: func(cwd string) Confinement {
			cwds = append(cwds, cwd)
			return Confinement{
				Write:  []string{cwd, filepath.Join(cwd, ".tmp")},
				Deny:   []string{filepath.Join(cwd, "*.env")}, // openai/codex#22179: a deny glob did nothing in 0.130
				TmpDir: filepath.Join(cwd, ".tmp"),
			}
		},
	})
	ws := hs.Workspace
	for name, text := range map[string]string{"notes.txt": "mine\n", "a.env": "TOKEN=x\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, ".tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	id, err := a.NewSession(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, stop := prompt(t, ctx, a, id, "Probe."); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	a.mu.Lock()
	dead := a.conn
	a.mu.Unlock()
	a.killAppServer(t)
	<-dead.done // the next prompt starts a new app-server and resumes
	if _, stop := prompt(t, ctx, a, id, "Probe again."); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop after restart = %q", stop)
	}
	want := "exit 0: mine\ncat: a.env: Permission denied\ncat: " + secret + ": No such file or directory\n" +
		"/bin/bash: line 1: " + other + "/x: No such file or directory\n" + ws + "/.tmp\n"
	reqs := hs.Server.ModelRequests()
	for _, call := range []string{"call_start", "call_resumed"} {
		if got := modelGot(t, reqs, call); got != want {
			t.Errorf("%s: the model got\n%q\nwant\n%q", call, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(other, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write reached %s/x (stat: %v)", other, err)
	}
	if len(cwds) != 2 || cwds[0] != ws || cwds[1] != ws {
		t.Errorf("Confine called with %q, want the workspace on start and on resume", cwds)
	}
}

// Without a working directory the profile cannot be built: the resume
// fails instead of leaving the thread to CODEX_HOME's sandbox settings.
func TestConfinedResumeNeedsAWorkspace(t *testing.T) {
	a := New(Options{Confine: func(string) Confinement { return Confinement{} }})
	if _, err := a.threadConfig(""); !errors.Is(err, errNoWorkspace) {
		t.Fatalf("threadConfig(\"\") = %v, want errNoWorkspace", err)
	}
}

// A command an approver lets out of the sandbox writes outside the
// workspace, but a denied path stays hidden from it: Codex keeps a
// profile's deny entries for escalations and drops the rest.
func TestConfinedEscalationKeepsDenies(t *testing.T) {
	ctx := testCtx(t)
	other, secrets := t.TempDir(), t.TempDir()
	secret := filepath.Join(secrets, "auth.json")
	if err := os.WriteFile(secret, []byte("login\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{
		"cmd": "exec 2>&1; echo out > " + other + "/x && cat " + other + "/x; cat " + secret, "yield_time_ms": 30000,
		"sandbox_permissions": "require_escalated", "justification": "writes outside the workspace",
	})
	a, h := newAgent(t, sm.Sequence(
		sm.Reply(sm.FunctionCall("call_esc", "exec_command", string(args))),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")),
	), sm.HomeOptions{ApprovalPolicy: "on-request"}, Options{
		ApprovalPolicy: "on-request",
		Confine: func(cwd string) Confinement {
			return Confinement{Write: []string{cwd}, Deny: []string{secrets}}
		},
	})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	c := &choose{option: OptionAllowOnce}
	if stop := promptSink(t, ctx, a, id, "Run it.", &recorder{permit: c.decide}); stop != acp.StopReasonEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if len(c.seen) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(c.seen))
	}
	want := "exit 1: out\ncat: " + secret + ": Permission denied\n"
	if got := modelGot(t, h.Server.ModelRequests(), "call_esc"); got != want {
		t.Fatalf("the model got\n%q\nwant\n%q", got, want)
	}
}

// ThreadConfig makes the profile from the Confinement as the mode allows
// it: read-only turns every writable path but TMPDIR into a readable one;
// a denied path that holds the working directory or Codex's installation
// is left out, one inside the working directory or beside the installation
// is kept.
func TestThreadConfig(t *testing.T) {
	c := Confinement{
		Read:   []string{"/usr", "/srv/shared"},
		Write:  []string{"/w/conv", "/w/.tmp/conv"},
		Deny:   []string{"/etc/shadow", "/w", "/opt/codex", "/opt/codex/cache", "/w/conv/.env"},
		TmpDir: "/w/.tmp/conv",
	}
	install := []string{"/opt/codex/bin/codex"}
	// profile is the config with the working directory's access as given.
	profile := func(cwd string) map[string]any {
		fs := map[string]any{":minimal": "read", "/opt/codex/bin/codex": "read", "/usr": "read", "/srv/shared": "read",
			"/w/conv": cwd, "/w/.tmp/conv": "write", "/etc/shadow": "deny", "/opt/codex/cache": "deny", "/w/conv/.env": "deny"}
		return map[string]any{
			"default_permissions":      ProfileID,
			"permissions":              map[string]any{ProfileID: map[string]any{"filesystem": fs}},
			"shell_environment_policy": map[string]any{"set": map[string]any{"TMPDIR": "/w/.tmp/conv"}},
		}
	}
	for mode, want := range map[acpbridge.Mode]map[string]any{
		acpbridge.ModeWorkspace: profile("write"),
		acpbridge.ModeFull:      profile("write"),
		acpbridge.ModeReadOnly:  profile("read"),
	} {
		if got := ThreadConfig(c, "/w/conv", mode, install); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n%v\nwant\n%v", mode, got, want)
		}
	}
	if got := ThreadConfig(Confinement{}, "/w/conv", acpbridge.DefaultMode, nil); !reflect.DeepEqual(got, map[string]any{
		"default_permissions": ProfileID,
		"permissions":         map[string]any{ProfileID: map[string]any{"filesystem": map[string]any{":minimal": "read"}}},
	}) {
		t.Errorf("no TMPDIR: %v", got)
	}
}

// Installation names what the Agent lets confined commands read of Codex:
// for the npm launcher the platform directory of the native binary it runs
// instead, for any other binary that file.
func TestInstallationIsTheAgents(t *testing.T) {
	launcher := codextest.CodexBin(t)
	native, _, ok := nativeCodex(launcher)
	if !ok {
		t.Fatalf("%s: not the npm launcher", launcher)
	}
	real, err := filepath.EvalSymlinks(native)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ bin, want string }{
		{launcher, filepath.Dir(filepath.Dir(real))},
		{native, real},
	} {
		a := New(Options{Bin: tc.bin, Confine: func(string) Confinement { return Confinement{} }})
		cfg, err := a.threadConfig("/w/conv")
		if err != nil {
			t.Fatal(err)
		}
		if got := Installation(tc.bin); !reflect.DeepEqual(got, []string{tc.want}) {
			t.Errorf("Installation(%s) = %q, want [%s]", tc.bin, got, tc.want)
		}
		if want := ThreadConfig(Confinement{}, "/w/conv", acpbridge.DefaultMode, Installation(tc.bin)); !reflect.DeepEqual(cfg, want) {
			t.Errorf("%s: the Agent sends\n%v\nThreadConfig makes\n%v", tc.bin, cfg, want)
		}
	}
	if got := Installation(filepath.Join(t.TempDir(), "none")); got != nil {
		t.Errorf("Installation of a missing binary = %q, want nil", got)
	}
}
