package codex

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// On a confined thread a Prompt's mode reaches Codex as the thread's
// permission profile, on the same thread: a
// write into the workspace succeeds in workspace mode, fails inside the
// sandbox in read-only mode while reading still works, and succeeds again
// once the mode is back. Each switch reloads the thread with its profile.
// (A Prompt without a mode keeps the thread's, as TestPromptModeReachesCodex
// shows for unconfined threads.)
func TestModeSwitchesTheThreadsSandbox(t *testing.T) {
	ctx := testCtx(t)
	write := "exec 2>&1; echo changed > w.txt && cat w.txt; cat r.txt"
	script := sm.Sequence(
		sm.Reply(confinedExec("call_ws", write)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Wrote.")),
		sm.Reply(confinedExec("call_ro", write)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Tried.")),
		sm.Reply(confinedExec("call_back", write)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Wrote again.")),
	)
	a, hs := newAgent(t, script, sm.HomeOptions{}, Options{
		Confine: func(cwd string) Confinement {
			tmp := filepath.Join(cwd, ".tmp")
			return Confinement{Write: []string{cwd, tmp}, TmpDir: tmp}
		},
	})
	ws := hs.Workspace
	if err := os.WriteFile(filepath.Join(ws, "r.txt"), []byte("readable\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	id, err := a.NewSession(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		text string
		mode acpbridge.Mode
	}{
		{"Write.", acpbridge.ModeWorkspace},
		{"Try.", acpbridge.ModeReadOnly},
		{"Write again.", acpbridge.ModeWorkspace},
	} {
		if err := os.Remove(filepath.Join(ws, "w.txt")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		stop, err := a.Prompt(ctx, id, acpbridge.Prompt{Text: step.text, Mode: step.mode}, &recorder{})
		if err != nil || stop != acp.StopReasonEndTurn {
			t.Fatalf("Prompt(%q, mode %q) = %q, %v", step.text, step.mode, stop, err)
		}
	}
	reqs := hs.Server.ModelRequests()
	for call, want := range map[string]string{
		"call_ws":   "exit 0: changed\nreadable\n",
		"call_ro":   "exit 0: /bin/bash: line 1: w.txt: Read-only file system\nreadable\n",
		"call_back": "exit 0: changed\nreadable\n",
	} {
		if got := modelGot(t, reqs, call); got != want {
			t.Errorf("%s: the model got\n%q\nwant\n%q", call, got, want)
		}
	}
}

// inMode keeps TMPDIR writable in read-only mode and changes nothing in
// the other modes.
func TestInMode(t *testing.T) {
	c := Confinement{Read: []string{"/opt"}, Write: []string{"/ws", "/ws/.tmp"}, Deny: []string{"/ws/a.env"}, TmpDir: "/ws/.tmp"}
	ro := inMode(c, acpbridge.ModeReadOnly)
	if got, want := ro.Read, []string{"/opt", "/ws"}; !slices.Equal(got, want) {
		t.Errorf("read-only Read = %q, want %q", got, want)
	}
	if got, want := ro.Write, []string{"/ws/.tmp"}; !slices.Equal(got, want) {
		t.Errorf("read-only Write = %q, want %q", got, want)
	}
	if !slices.Equal(ro.Deny, c.Deny) || !slices.Equal(c.Write, []string{"/ws", "/ws/.tmp"}) {
		t.Errorf("read-only Deny = %q, and c.Write became %q", ro.Deny, c.Write)
	}
	for _, m := range []acpbridge.Mode{acpbridge.ModeWorkspace, acpbridge.ModeFull, ""} {
		if got := inMode(c, m); !slices.Equal(got.Write, c.Write) || !slices.Equal(got.Read, c.Read) {
			t.Errorf("inMode(%q) = %+v, want c", m, got)
		}
	}
}
