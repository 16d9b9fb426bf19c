package codextest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

var update = flag.Bool("update", false, "re-record testdata/appserver-turn.jsonl from the real codex app-server")

// TranscriptPath is the recorded raw stdout of one real `codex app-server`
// session: the initialize and thread/start responses, then one turn with a
// reasoning summary, a commentary message, an `echo hello` command and a
// final answer (about 50 text deltas), ending with turn/completed. Bridge
// benchmarks replay it. Re-record with
//
//	go test ./internal/codextest -run TestAppServerTranscript -update
const TranscriptPath = "testdata/appserver-turn.jsonl"

// TranscriptPrompt is the user message of the recorded turn.
const TranscriptPrompt = "Summarise what the workspace says."

func transcriptScript() sm.Script {
	return sm.Sequence(
		sm.Reply(
			sm.Reasoning("**Inspecting the workspace** I should look at what the workspace prints before answering the question."),
			sm.Message(sm.PhaseCommentary, "I will inspect the workspace by running a quick command first."),
			sm.ExecCommand("call_echo", "echo hello"),
		),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer,
			"The workspace says **hello**.\n\n- I ran `echo hello` in the workspace.\n- It printed `hello` and exited with code 0.\n\nNothing else needed to change, so the answer is simply hello.")),
	)
}

// TestAppServerTranscript records one real turn and checks its shape against
// the committed transcript (ids, times and paths differ between runs; the
// sequence of item and turn events must not).
func TestAppServerTranscript(t *testing.T) {
	t.Parallel()
	h := Start(t, transcriptScript())
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "never", "workspace-write")
	msgs := c.runTurn(thread, TranscriptPrompt, "")
	if got := turnStatus(t, msgs); got != "completed" {
		t.Fatalf("turn status %q", got)
	}
	fresh := c.transcriptBytes()

	deltas := 0
	for _, m := range msgs {
		if m.Method == "item/agentMessage/delta" || m.Method == "item/reasoning/summaryTextDelta" {
			deltas++
		}
	}
	if deltas < 45 || deltas > 60 {
		t.Errorf("recorded turn has %d text deltas, want about 50", deltas)
	}

	if *update {
		if err := os.MkdirAll(filepath.Dir(TranscriptPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(TranscriptPath, fresh, 0o644); err != nil {
			t.Fatalf("write transcript: %v", err)
		}
		t.Logf("recorded %s (%d bytes, %d text deltas)", TranscriptPath, len(fresh), deltas)
		return
	}
	recorded, err := os.ReadFile(TranscriptPath)
	if err != nil {
		t.Fatalf("read %s: %v (re-record with -update)", TranscriptPath, err)
	}
	if got, want := transcriptShape(t, fresh), transcriptShape(t, recorded); !reflect.DeepEqual(got, want) {
		t.Errorf("codex app-server turn no longer matches %s (re-record with -update if the change is expected):\n got %q\nwant %q",
			TranscriptPath, got, want)
	}
}

// transcriptShape reduces a transcript to its item and turn events: method,
// item type and phase, and the text of each delta and completed message.
func transcriptShape(t *testing.T, transcript []byte) []string {
	t.Helper()
	var shape []string
	for _, line := range bytes.Split(bytes.TrimSpace(transcript), []byte("\n")) {
		var m rpcMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("transcript line is not JSON: %q", line)
		}
		if !strings.HasPrefix(m.Method, "item/") && !strings.HasPrefix(m.Method, "turn/") {
			continue
		}
		if m.Method == "item/commandExecution/outputDelta" {
			continue // how a command's output is chunked is up to the OS
		}
		var p struct {
			Delta string   `json:"delta"`
			Item  wireItem `json:"item"`
			Turn  struct {
				Status string `json:"status"`
			} `json:"turn"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("decode %s: %v", m.Method, err)
		}
		s := m.Method
		switch {
		case p.Item.Type != "":
			s += " " + p.Item.Type
			if p.Item.Type == "agentMessage" {
				s += " " + phaseOf(p.Item) + " " + p.Item.Text
			}
		case p.Turn.Status != "":
			s += " " + p.Turn.Status
		default:
			s += " " + p.Delta
		}
		shape = append(shape, s)
	}
	return shape
}
