package codex

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// lineRig feeds app-server JSON lines, in the exact shape Codex 0.171 writes
// them, through the connection's dispatcher into an Agent with one thread
// ("th1") running turn "tu1". What the Agent writes back lands in out.
type lineRig struct {
	a   *Agent
	c   *conn
	th  *thread
	ts  *turnState
	rec *recorder
	out *syncBuffer
}

type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	once    sync.Once
	written chan struct{} // closed on the first write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.once.Do(func() { close(s.written) })
	return s.b.Write(p)
}
func (s *syncBuffer) Close() error { return nil }
func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newLineRig(t testing.TB, opts Options) *lineRig {
	a := New(opts)
	t.Cleanup(func() { _ = a.Close() })
	r := &lineRig{a: a, rec: &recorder{}, out: &syncBuffer{written: make(chan struct{})}}
	r.c = &conn{h: a, log: a.log, stdin: r.out, pending: map[int64]chan callResult{}, done: make(chan struct{})}
	r.th = a.threadFor("th1")
	r.ts = sentTurn(a.ctx, r.rec)
	r.th.turn.Store(r.ts)
	return r
}

// sentTurn is a turn whose turn/start has been sent, as the rigs play Codex
// from that point on.
func sentTurn(ctx context.Context, sink acpbridge.Sink) *turnState {
	ts := newTurn(ctx, sink)
	ts.sent.Store(true)
	return ts
}

func (r *lineRig) feed(lines ...string) {
	for _, l := range lines {
		r.c.dispatch([]byte(l))
	}
}

const (
	startedCommentary = `{"method":"item/started","params":{"item":{"type":"agentMessage","moderation":null,"id":"msg_c","text":"","phase":"commentary","memoryCitation":null,"delivery":null,"questions":null,"startedAtMs":1,"completedAtMs":null},"threadId":"th1","turnId":"tu1","startedAtMs":1},"emittedAtMs":1}`
	startedFinal      = `{"method":"item/started","params":{"item":{"type":"agentMessage","id":"msg_f","text":"","phase":"final_answer"},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`
	startedNull       = `{"method":"item/started","params":{"item":{"type":"agentMessage","id":"msg_n","text":"","phase":null},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`
	startedOdd        = `{"method":"item/started","params":{"item":{"type":"agentMessage","id":"msg_o","text":"","phase":"something_new"},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`
)

func delta(item, text string) string {
	return `{"method":"item/agentMessage/delta","params":{"threadId":"th1","turnId":"tu1","itemId":"` + item + `","delta":` + text + `},"emittedAtMs":1}`
}

func completed(item, phase, text string) string {
	return `{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"` + item + `","text":"` + text + `","phase":` + phase + `},"threadId":"th1","turnId":"tu1","completedAtMs":2}}`
}

func TestLinesPhaseRouting(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(
		startedCommentary,
		delta("msg_c", `"I will"`),
		delta("msg_c", `" look \"here\"\n"`),
		completed("msg_c", `"commentary"`, `I will look`),
		startedNull, delta("msg_n", `"null phase"`), completed("msg_n", "null", "null phase"),
		startedOdd, delta("msg_o", `"odd phase"`), completed("msg_o", `"something_new"`, "odd phase"),
		startedFinal, delta("msg_f", `"Done \u4f60\u597d."`), completed("msg_f", `"final_answer"`, "Done."),
	)
	equalLines(t, "updates", r.rec.lines(), []string{
		"thought[msg_c] I will",
		"thought[msg_c]  look \"here\"\n",
		"message[msg_n] null phase",
		"message[msg_o] odd phase",
		"message[msg_f] Done 你好.",
	})
	if n := r.a.phases.(*acpbridge.PhaseCache).Len(); n != 0 {
		t.Fatalf("phase cache holds %d items after completion, want 0", n)
	}
}

func TestLinesMessageCompletedWithoutDeltasIsDeliveredWhole(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(startedCommentary, completed("msg_c", `"commentary"`, "Unstreamed progress."),
		startedFinal, completed("msg_f", `"final_answer"`, "Unstreamed answer."))
	equalLines(t, "updates", r.rec.lines(), []string{
		"thought[msg_c] Unstreamed progress.",
		"message[msg_f] Unstreamed answer.",
	})
}

func TestLinesToolsPlanUsage(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(
		`{"method":"item/started","params":{"item":{"type":"fileChange","id":"fc1","status":"inProgress","changes":[{"path":"/w/a.txt","kind":{"type":"update","move_path":null},"diff":"@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"},{"path":"/w/b.txt","kind":{"type":"add"},"diff":"hello\n"}]},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`,
		`{"method":"item/completed","params":{"item":{"type":"fileChange","id":"fc1","status":"completed","changes":[]},"threadId":"th1","turnId":"tu1","completedAtMs":2}}`,
		`{"method":"item/started","params":{"item":{"type":"mcpToolCall","id":"mcp1","server":"docs","tool":"lookup","status":"inProgress","arguments":{"q":"x"}},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`,
		`{"method":"item/completed","params":{"item":{"type":"mcpToolCall","id":"mcp1","server":"docs","tool":"lookup","status":"completed","arguments":{"q":"x"},"result":{"content":[{"type":"text","text":"found x"}]}},"threadId":"th1","turnId":"tu1","completedAtMs":2}}`,
		`{"method":"item/started","params":{"item":{"type":"webSearch","id":"ws1","query":""},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`,
		`{"method":"item/completed","params":{"item":{"type":"webSearch","id":"ws1","query":"acp protocol"},"threadId":"th1","turnId":"tu1","completedAtMs":2}}`,
		`{"method":"item/started","params":{"item":{"type":"commandExecution","id":"ce1","command":"false","cwd":"/w","status":"inProgress","commandActions":[]},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`,
		`{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"ce1","command":"false","cwd":"/w","status":"failed","commandActions":[],"aggregatedOutput":"","exitCode":1},"threadId":"th1","turnId":"tu1","completedAtMs":2}}`,
		`{"method":"turn/plan/updated","params":{"threadId":"th1","turnId":"tu1","explanation":null,"plan":[{"step":"Read","status":"completed"},{"step":"Edit","status":"inProgress"},{"step":"Test","status":"pending"}]}}`,
		`{"method":"thread/tokenUsage/updated","params":{"threadId":"th1","turnId":"tu1","tokenUsage":{"total":{"totalTokens":500},"last":{"totalTokens":120},"modelContextWindow":258400}}}`,
		`{"method":"item/reasoning/summaryTextDelta","params":{"threadId":"th1","turnId":"tu1","itemId":"rs1","summaryIndex":0,"delta":"Part one."}}`,
		`{"method":"item/reasoning/summaryPartAdded","params":{"threadId":"th1","turnId":"tu1","itemId":"rs1","summaryIndex":1}}`,
		`{"method":"item/reasoning/summaryTextDelta","params":{"threadId":"th1","turnId":"tu1","itemId":"rs1","summaryIndex":1,"delta":"Part two."}}`,
		`{"method":"item/reasoning/textDelta","params":{"threadId":"th1","turnId":"tu1","itemId":"rs1","contentIndex":0,"delta":"raw"}}`,
		`{"method":"some/future/notification","params":{"threadId":"th1","x":1}}`,
	)
	equalLines(t, "updates", r.rec.lines(), []string{
		`tool_call[fc1] edit in_progress "Edit /w/a.txt, /w/b.txt" diff(/w/a.txt)="keep\nold\n"->"keep\nnew\n" diff(/w/b.txt)=""->"hello\n"`,
		`tool_call_update[fc1] completed`,
		`tool_call[mcp1] other in_progress "docs: lookup"`,
		`tool_call_update[mcp1] completed text="found x"`,
		`tool_call[ws1] fetch in_progress "Web search"`,
		`tool_call_update[ws1] completed title="Web search: acp protocol"`,
		`tool_call[ce1] execute in_progress "false"`,
		`tool_call_update[ce1] failed`,
		`plan Read=completed, Edit=in_progress, Test=pending`,
		`usage 120/258400`,
		"thought[rs1] Part one.",
		"thought[rs1] \n\n",
		"thought[rs1] Part two.",
		"thought[rs1] raw",
	})
}

func TestLinesNoticesNeverReachTheBody(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(
		`{"method":"error","params":{"threadId":"th1","turnId":"tu1","willRetry":true,"error":{"message":"stream disconnected","additionalDetails":null}}}`,
		`{"method":"error","params":{"threadId":"th1","turnId":"tu1","willRetry":true,"error":{"message":"stream disconnected","additionalDetails":null}}}`,
		`{"method":"error","params":{"threadId":"th1","turnId":"tu1","willRetry":false,"error":{"message":"quota exceeded","additionalDetails":"try later"}}}`,
		`{"method":"warning","params":{"threadId":"th1","message":"Model metadata missing"}}`,
		`{"method":"thread/compacted","params":{"threadId":"th1","turnId":"tu1"}}`,
		`{"method":"configWarning","params":{"summary":"bad key","details":"unknown field x"}}`,
		`{"method":"deprecationNotice","params":{"summary":"old API","details":null}}`,
		`{"method":"warning","params":{"message":"Model metadata missing"}}`,
		// A failure that says something else: the held error is shown.
		`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","items":[],"status":"failed","error":{"message":"turn aborted","additionalDetails":null}}}}`,
	)
	if len(r.rec.updates) != 0 {
		t.Fatalf("notices produced updates: %q", r.rec.lines())
	}
	// One retry line however often Codex retries; environment warnings go
	// to the admin (Warnings), once each.
	equalLines(t, "notices", r.rec.noticeLines(), []string{
		"warning: The model request failed (other; retrying)", // Codex's words are for the log
		"info: Context compacted",
		"error: quota exceeded: try later",
	})
	equalLines(t, "warnings", r.a.Warnings(), []string{
		"Model metadata missing",
		"bad key: unknown field x",
		"old API",
	})
}

// TestLinesFinalErrorShownOnce: the error Codex sends before failing a turn
// is the turn's failure again; the card's status shows it, not a notice too.
func TestLinesFinalErrorShownOnce(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(
		`{"method":"turn/started","params":{"threadId":"th1","turn":{"id":"tu1","items":[],"status":"inProgress","error":null}}}`,
		`{"method":"error","params":{"threadId":"th1","turnId":"tu1","willRetry":false,"error":{"message":"unexpected status 401 Unauthorized","codexErrorInfo":{"httpConnectionFailed":{"httpStatusCode":401}}}}}`,
		`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","items":[],"status":"failed","error":{"message":"unexpected status 401 Unauthorized","codexErrorInfo":{"httpConnectionFailed":{"httpStatusCode":401}}}}}}`,
	)
	<-r.ts.done
	if n := r.rec.noticeLines(); len(n) != 0 {
		t.Fatalf("notices = %q, want none beside the failure", n)
	}
	_, err := stopReason(r.ts.result)
	if err == nil || err.Error() != "unexpected status 401 Unauthorized" || acpbridge.KindOf(err) != acpbridge.KindNotAuthenticated {
		t.Fatalf("failure = %v (kind %v), want the 401 as not authenticated", err, acpbridge.KindOf(err))
	}
}

func TestLinesTurnFilterAndCompletion(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(
		`{"method":"turn/started","params":{"threadId":"th1","turn":{"id":"tu1","items":[],"status":"inProgress","error":null}}}`,
		startedFinal,
		`{"method":"item/agentMessage/delta","params":{"threadId":"th1","turnId":"tu_old","itemId":"msg_f","delta":"stale"}}`,
		delta("msg_f", `"fresh"`),
		`{"method":"item/agentMessage/delta","params":{"threadId":"other","turnId":"tu9","itemId":"msg_f","delta":"elsewhere"}}`,
		`{"method":"turn/completed","params":{"threadId":"th1","turn":{"id":"tu1","items":[],"status":"failed","error":{"message":"model refused","additionalDetails":null}}}}`,
	)
	equalLines(t, "updates", r.rec.lines(), []string{"message[msg_f] fresh"})
	<-r.ts.done
	if _, err := stopReason(r.ts.result); err == nil || err.Error() != "model refused" {
		t.Fatalf("failed turn error = %v, want model refused", err)
	}
	if r.th.turn.Load() != nil {
		t.Fatal("completed turn still registered")
	}
}

func TestLinesCommandOutputTailIsBounded(t *testing.T) {
	r := newLineRig(t, Options{})
	r.feed(`{"method":"item/started","params":{"item":{"type":"commandExecution","id":"ce1","command":"yes","cwd":"/w","status":"inProgress","commandActions":[]},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`)
	line := strings.Repeat("y", 99) + `\n`
	for range 5000 {
		r.feed(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"th1","turnId":"tu1","itemId":"ce1","delta":"` + line + `"}}`)
	}
	last := r.rec.updates[len(r.rec.updates)-1].ToolCallUpdate
	text := last.Content[0].Content.Content.Text.Text
	if len(text) > outputTail || !strings.HasSuffix(text, strings.Repeat("y", 99)+"\n") || !strings.HasPrefix(text, "y") {
		t.Fatalf("tail of %d bytes (max %d), prefix %q", len(text), outputTail, text[:10])
	}
	if len(r.rec.updates) != 5001 {
		t.Fatalf("updates = %d, want one per delta plus the tool call", len(r.rec.updates))
	}
}

func TestLinesApprovalDecisions(t *testing.T) {
	cases := []struct {
		name string
		resp acp.RequestPermissionResponse
		want string
	}{
		{"allow once", acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(OptionAllowOnce)}, "accept"},
		{"allow always", acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(OptionAllowAlways)}, "acceptForSession"},
		{"reject", acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(OptionRejectOnce)}, "decline"},
		{"cancelled", acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled()}, "cancel"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan acp.RequestPermissionRequest, 1)
			r := newLineRig(t, Options{})
			r.rec.permit = func(_ context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
				got <- req
				return tc.resp
			}
			r.feed(
				`{"method":"item/started","params":{"item":{"type":"fileChange","id":"fc1","status":"inProgress","changes":[{"path":"/w/n.txt","kind":{"type":"add"},"diff":"new\n"}]},"threadId":"th1","turnId":"tu1","startedAtMs":1}}`,
				`{"id":7,"method":"item/fileChange/requestApproval","params":{"threadId":"th1","turnId":"tu1","itemId":"fc1","startedAtMs":1,"reason":"write outside"}}`,
			)
			req := <-got
			if req.ToolCall.ToolCallId != "fc1" || *req.ToolCall.Kind != acp.ToolKindEdit || *req.ToolCall.Title != "Edit /w/n.txt" ||
				len(req.ToolCall.Content) != 1 || req.ToolCall.Content[0].Diff.NewText != "new\n" {
				t.Fatalf("permission tool call = %+v", req.ToolCall)
			}
			want := `{"id":7,"result":{"decision":"` + tc.want + `"}}` + "\n"
			<-r.out.written // the approval goroutine answers
			if r.out.String() != want {
				t.Fatalf("answer = %q, want %q", r.out.String(), want)
			}
		})
	}
}
