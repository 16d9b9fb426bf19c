package bot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/chattest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
)

// notesPatch adds notes.txt and changes README.md, in the apply_patch
// format; Codex applies it itself (a fileChange item, not a command) when
// the model runs it through its shell tool.
const notesPatch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+hello\n" +
	"*** Update File: README.md\n@@\n-old\n+new\n*** End Patch\nEOF"

// A patch the real Codex applied in a turn is one patch record naming the
// files it changed, between the turn's start and end, and no command
// record.
func TestAuditRecordsAPatch(t *testing.T) {
	h := codextest.Start(t, sm.Sequence(
		sm.Reply(sm.ExecCommand("call-patch", notesPatch)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Patched.")),
	))
	st := testenv.OpenStores(t, testenv.Prefix(t, "auditpatch"))
	a := startAuditReplica(t, "replica-a", h, st, bot.Config{Access: bot.Access{AllowUsers: []string{"alice"}}}, nil, true)
	room := chattest.Room("patch")
	ws := bot.WorkspaceDir(h.Workspace, room.Key())
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.e.Receive(t.Context(), chattest.Message("p1", room, "alice", "patch it")); err != nil {
		t.Fatal(err)
	}
	a.chat.WaitFor(t, room, "finish")
	waitForRecord(t, st, "turn_ended")

	got := records(t, st)
	if len(got) < 2 {
		t.Fatalf("records:\n%s\nwant a message and a turn", dump(got))
	}
	files, _ := marshal([]string{filepath.Join(ws, "README.md"), filepath.Join(ws, "notes.txt")})
	// Two model requests of the scripted model's default usage, 100 in and
	// 20 out each.
	want := []string{
		`{"kind":"message","user":"alice","conversation":"room:patch","channel":"chattest","replica":"replica-a","seq":1,"msgid":"p1","length":8,"text":"patch it"}`,
		`{"kind":"turn_started","user":"alice","conversation":"room:patch","channel":"chattest","replica":"replica-a","turn":"T","seq":2}`,
		`{"kind":"patch","user":"alice","conversation":"room:patch","channel":"chattest","replica":"replica-a","turn":"T","seq":3,"files":` + string(files) + `}`,
		`{"kind":"turn_ended","user":"alice","conversation":"room:patch","channel":"chattest","replica":"replica-a","turn":"T","seq":4,"outcome":"finished","duration_ms":0,"tokens":{"input":200,"cached_input":0,"output":40,"reasoning":0,"total":240}}`,
	}
	if lines := recordLines(t, got, got[1].Turn); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for name, body := range map[string]string{"README.md": "new\n", "notes.txt": "hello\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(b) != body {
			t.Errorf("%s after the patch: %q (%v), want %q", name, b, err, body)
		}
	}
}
