package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// replayRecording feeds a recorded app-server stdout (testdata/NAME, lines
// captured from Codex 0.171.0) through the dispatcher into a turn on the
// recording's thread, and returns what the sink got.
func replayRecording(t *testing.T, name string) *recorder {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		Params struct {
			ThreadID string `json:"threadId"`
		} `json:"params"`
	}
	if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &first); err != nil || first.Params.ThreadID == "" {
		t.Fatalf("%s: first line names no thread: %v", name, err)
	}
	r := newLineRig(t, Options{})
	th := r.a.threadFor(first.Params.ThreadID)
	rec := &recorder{}
	th.turn.Store(sentTurn(r.a.ctx, rec))
	lr := lineReader{r: bufio.NewReader(bytes.NewReader(data))}
	for {
		line, err := lr.next()
		if err != nil {
			return rec
		}
		r.c.dispatch(line)
	}
}

// toolOutput is what an ACP client holds as the text content of one tool
// call after each update: content replaces the previous content, absent
// content leaves it. It returns the final text, and how many updates made
// the client hold exactly want (how many times the output was delivered).
func toolOutput(updates []acp.SessionUpdate, id acp.ToolCallId, want string) (final string, deliveries int) {
	for _, u := range updates {
		var content []acp.ToolCallContent
		switch {
		case u.ToolCall != nil && u.ToolCall.ToolCallId == id:
			content = u.ToolCall.Content
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == id:
			content = u.ToolCallUpdate.Content
		default:
			continue
		}
		if content == nil {
			continue
		}
		var b strings.Builder
		for _, c := range content {
			if c.Content != nil && c.Content.Content.Text != nil {
				b.WriteString(c.Content.Content.Text.Text)
			}
		}
		final = b.String()
		if final == want {
			deliveries++
		}
	}
	return final, deliveries
}

// Codex 0.171.0 streams a command's output, all of it, some of it, or none,
// depending on how long the command runs; the client must end up with the
// output exactly once either way.
func TestRecordedCommandOutputStreamedOrNot(t *testing.T) {
	cases := []struct {
		recording, id, output string
		want                  []string
	}{{
		// `echo alpha; echo beta` ran in 0 ms: no outputDelta at all.
		"command-not-streamed.jsonl", "call_ls", "alpha\nbeta\n",
		[]string{
			`tool_call[call_ls] execute in_progress "/bin/bash -c 'echo alpha; echo beta'"`,
			`tool_call_update[call_ls] completed text="alpha\nbeta\n"`,
		},
	}, {
		// With sleeps between the lines each line streamed: the completion
		// has nothing to add.
		"command-streamed.jsonl", "call_slow", "alpha\nbeta\n",
		[]string{
			`tool_call[call_slow] execute in_progress "/bin/bash -c 'sleep 0.4; echo alpha; sleep 0.4; echo beta'"`,
			`tool_call_update[call_slow] in_progress text="alpha\n"`,
			`tool_call_update[call_slow] in_progress text="alpha\nbeta\n"`,
			`tool_call_update[call_slow] completed`,
		},
	}, {
		// What was printed before Codex first polled the command never
		// streamed: the streamed "two\n" is not a prefix of the output, and
		// the whole output replaces it.
		"command-streamed-partly.jsonl", "call_part", "one\ntwo\n",
		[]string{
			`tool_call[call_part] execute in_progress "/bin/bash -c 'echo one; sleep 0.5; echo two'"`,
			`tool_call_update[call_part] in_progress text="two\n"`,
			`tool_call_update[call_part] completed text="one\ntwo\n"`,
		},
	}}
	for _, tc := range cases {
		t.Run(tc.recording, func(t *testing.T) {
			rec := replayRecording(t, tc.recording)
			equalLines(t, "updates", rec.lines(), tc.want)
			if final, n := toolOutput(rec.updates, acp.ToolCallId(tc.id), tc.output); final != tc.output || n != 1 {
				t.Fatalf("client holds %q after delivering the output %d times, want %q once", final, n, tc.output)
			}
		})
	}
}

// A streamed prefix, a streamed output longer than the tail the updates
// carry, and an output Codex did not aggregate: each completion sends what
// the client lacks, as a replacement.
func TestLinesCommandCompletionSendsOnlyWhatIsMissing(t *testing.T) {
	started := `{"method":"item/started","params":{"item":{"type":"commandExecution","id":"ce1","command":"make","cwd":"/w","processId":"1","source":"unifiedExecStartup","status":"inProgress","commandActions":[],"aggregatedOutput":null,"exitCode":null,"durationMs":null},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`
	outDelta := func(s string) string {
		return `{"method":"item/commandExecution/outputDelta","params":{"threadId":"th1","turnId":"tu1","itemId":"ce1","delta":"` + s + `"}}`
	}
	done := func(agg string) string {
		return `{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"ce1","command":"make","cwd":"/w","processId":"1","source":"unifiedExecStartup","status":"completed","commandActions":[],"aggregatedOutput":` + agg + `,"exitCode":0,"durationMs":3},"threadId":"th1","turnId":"tu1","completedAtMs":2}}`
	}
	long := strings.Repeat("x", 99) + `\n`
	cases := []struct {
		name  string
		lines []string
		last  string // the completing update
	}{
		{"prefix streamed", []string{outDelta(`a\n`), done(`"a\nb\n"`)}, `tool_call_update[ce1] completed text="a\nb\n"`},
		{"all streamed", []string{outDelta(`a\n`), outDelta(`b\n`), done(`"a\nb\n"`)}, `tool_call_update[ce1] completed`},
		{"streamed, not aggregated", []string{outDelta(`a\n`), done(`null`)}, `tool_call_update[ce1] completed`},
		{"nothing at all", []string{done(`""`)}, `tool_call_update[ce1] completed`},
		{"longer than the tail", append(repeat(outDelta(long), 30), done(`"`+strings.Repeat(long, 30)+`"`)),
			`tool_call_update[ce1] completed text="` + strings.Repeat(strings.Repeat("x", 99)+`\n`, 30) + `"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newLineRig(t, Options{})
			r.feed(append([]string{started}, tc.lines...)...)
			lines := r.rec.lines()
			if got := lines[len(lines)-1]; got != tc.last {
				t.Fatalf("completion = %s, want %s", got, tc.last)
			}
			if n := len(lines); n != len(tc.lines)+1 {
				t.Fatalf("%d updates, want the tool call and one per line", n)
			}
		})
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
