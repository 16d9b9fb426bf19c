package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/acpbridge/serve"
)

// turnAgent is an Agent whose one turn is fixed: commentary, a notice, a
// permission request on the turn's sink, then an answer that says what was
// decided. It stands in for Codex where the test is about the ACP
// wire ServeACP writes, not about Codex.
type turnAgent struct {
	mu        sync.Mutex
	cancelled []acp.SessionId
	returned  chan struct{} // receives when Prompt returns
}

func (a *turnAgent) NewSession(context.Context, string) (acp.SessionId, error) { return "s1", nil }

func (a *turnAgent) LoadSession(_ context.Context, id acp.SessionId, _ string, sink acpbridge.Sink) error {
	sink.Update(acpbridge.AgentText(acpbridge.PhaseCommentary, "m0", "earlier commentary"))
	sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m1", "earlier answer"))
	return nil
}

func (a *turnAgent) Prompt(ctx context.Context, id acp.SessionId, p acpbridge.Prompt, sink acpbridge.Sink) (acp.StopReason, error) {
	text := p.Text
	defer func() { a.returned <- struct{}{} }()
	sink.Update(acpbridge.AgentText(acpbridge.PhaseCommentary, "m2", "Looking at "+text))
	sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "model metadata missing"})
	if !strings.Contains(text, "ask") {
		sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m3", "nothing to ask"))
		return acp.StopReasonEndTurn, nil
	}
	resp := sink.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: id,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "call_1", Title: acp.Ptr("rm -rf build")},
		Options:   bridgetest.CodexOptions,
	})
	sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "m3", "decided "+bridgetest.Outcome(resp)))
	return acp.StopReasonEndTurn, nil
}

func (a *turnAgent) Cancel(_ context.Context, id acp.SessionId) error {
	a.mu.Lock()
	a.cancelled = append(a.cancelled, id)
	a.mu.Unlock()
	return nil
}

func (a *turnAgent) Close() error { return nil }

// wireClient answers permission requests with the allow policy.
type wireClient struct{}

func (c *wireClient) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

func (c *wireClient) RequestPermission(_ context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acpbridge.Policy(acpbridge.ApprovalAllow).Decide(req), nil
}

// wireTap sits on the agent-to-client stream: it records every message in
// the order ServeACP wrote it, and can stop reading to play a client that
// does not keep up.
type wireTap struct {
	r io.Reader

	mu    sync.Mutex
	gate  chan struct{} // when non-nil, Read waits for it to close
	lines []string
	buf   []byte
}

func (w *wireTap) Read(p []byte) (int, error) {
	w.mu.Lock()
	gate := w.gate
	w.mu.Unlock()
	if gate != nil {
		<-gate
	}
	n, err := w.r.Read(p)
	w.mu.Lock()
	w.buf = append(w.buf, p[:n]...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.lines = append(w.lines, summarize(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	w.mu.Unlock()
	return n, err
}

func (w *wireTap) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.lines
	w.lines = nil
	return out
}

// summarize renders one JSON-RPC message: a session/update by its params, a
// permission request by its title, a response by its result.
func summarize(line []byte) string {
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return "unparsable: " + string(line)
	}
	switch m.Method {
	case "session/update":
		return string(m.Params)
	case "session/request_permission":
		var req acp.RequestPermissionRequest
		_ = json.Unmarshal(m.Params, &req)
		return "request_permission " + bridgetest.Deref(req.ToolCall.Title)
	case "":
		return "response " + string(m.Result)
	}
	return m.Method
}

func (c *wireClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound("fs/read_text_file")
}
func (c *wireClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound("fs/write_text_file")
}
func (c *wireClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
}
func (c *wireClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound("terminal/kill")
}
func (c *wireClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound("terminal/output")
}
func (c *wireClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
}
func (c *wireClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound("terminal/wait_for_exit")
}

// serveOverPipes runs ServeACP for agent and returns a client connection to it.
func serveOverPipes(t *testing.T, agent acpbridge.Agent, client acp.Client) (*acp.ClientSideConnection, *wireTap) {
	t.Helper()
	cr, aw := io.Pipe() // agent -> client
	ar, cw := io.Pipe() // client -> agent
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- serve.ServeACP(ctx, agent, ar, aw, bridgetest.Logger(t), serve.Options{Version: "1.2.3"})
	}()
	t.Cleanup(func() {
		cw.Close() // the client leaves
		if err := <-served; err != nil {
			t.Errorf("ServeACP: %v", err)
		}
		cancel()
		aw.Close()
	})
	tap := &wireTap{r: cr}
	return acp.NewClientSideConnection(client, cw, tap), tap
}

func TestServeACPWire(t *testing.T) {
	agent := &turnAgent{returned: make(chan struct{}, 1)}
	conn, tap := serveOverPipes(t, agent, &wireClient{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	init, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bridgetest.Encode(t, init), `{"agentCapabilities":{"auth":{},"loadSession":true,"mcpCapabilities":{},"promptCapabilities":{"image":true},"sessionCapabilities":{}},"agentInfo":{"name":"wecodex","version":"1.2.3"},"authMethods":[],"protocolVersion":1}`; got != want {
		t.Errorf("initialize\n got %s\nwant %s", got, want)
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	if err != nil || sess.SessionId != "s1" {
		t.Fatalf("new session = %v, %v", sess, err)
	}
	tap.take()

	// Updates, notices as marked thoughts, the permission request after the
	// updates before it, and the response last.
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: "s1", Prompt: []acp.ContentBlock{acp.TextBlock("the repo, and ask")}})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %v, %v", resp, err)
	}
	<-agent.returned
	// The session's commands come first, before its first prompt's updates.
	want := []string{
		`{"sessionId":"s1","update":{"availableCommands":[{"description":"Show or switch the session's mode: read-only, workspace or full.","input":{"hint":"read-only | workspace | full"},"name":"mode"},{"description":"Show the models or switch the session's.","input":{"hint":"model id"},"name":"model"},{"description":"Switch the session's reasoning effort.","input":{"hint":"low | medium | high"},"name":"effort"},{"description":"Show the session's mode, model and reasoning effort.","name":"status"}],"sessionUpdate":"available_commands_update"}}`,
		`{"sessionId":"s1","update":{"content":{"text":"Looking at the repo, and ask","type":"text"},"messageId":"m2","sessionUpdate":"agent_thought_chunk"}}`,
		`{"sessionId":"s1","update":{"_meta":{"wecodex":{"notice":"warning"}},"content":{"text":"model metadata missing","type":"text"},"sessionUpdate":"agent_thought_chunk"}}`,
		`request_permission rm -rf build`,
		`{"sessionId":"s1","update":{"content":{"text":"decided selected allow","type":"text"},"messageId":"m3","sessionUpdate":"agent_message_chunk"}}`,
		`response {"stopReason":"end_turn"}`,
	}
	if got := tap.take(); !slices.Equal(got, want) {
		t.Errorf("wire\n got %q\nwant %q", got, want)
	}

	// A client that stops reading does not stall the agent: the turn ends
	// while nothing of it has been delivered, and all of it arrives later.
	gate := make(chan struct{})
	tap.mu.Lock()
	tap.gate = gate
	tap.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: "s1", Prompt: []acp.ContentBlock{acp.TextBlock("the docs")}})
		done <- err
	}()
	select {
	case <-agent.returned:
	case <-ctx.Done():
		t.Fatal("the agent's turn waited for a client that does not read")
	}
	tap.mu.Lock()
	tap.gate = nil
	tap.mu.Unlock()
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want = []string{
		`{"sessionId":"s1","update":{"content":{"text":"Looking at the docs","type":"text"},"messageId":"m2","sessionUpdate":"agent_thought_chunk"}}`,
		`{"sessionId":"s1","update":{"_meta":{"wecodex":{"notice":"warning"}},"content":{"text":"model metadata missing","type":"text"},"sessionUpdate":"agent_thought_chunk"}}`,
		`{"sessionId":"s1","update":{"content":{"text":"nothing to ask","type":"text"},"messageId":"m3","sessionUpdate":"agent_message_chunk"}}`,
		`response {"stopReason":"end_turn"}`,
	}
	if got := tap.take(); !slices.Equal(got, want) {
		t.Errorf("wire after a slow client\n got %q\nwant %q", got, want)
	}

	// session/load replays before its response.
	if _, err := conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "s1", Cwd: t.TempDir(), McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	wantReplay := []string{
		`{"sessionId":"s1","update":{"content":{"text":"earlier commentary","type":"text"},"messageId":"m0","sessionUpdate":"agent_thought_chunk"}}`,
		`{"sessionId":"s1","update":{"content":{"text":"earlier answer","type":"text"},"messageId":"m1","sessionUpdate":"agent_message_chunk"}}`,
		// An agent that lists no models offers the mode alone.
		`response {"configOptions":[{"category":"mode","currentValue":"workspace","id":"mode","name":"Mode","options":[{"description":"Read files; change nothing.","name":"read-only","value":"read-only"},{"description":"Edit the workspace; ask before anything beyond it.","name":"workspace","value":"workspace"},{"description":"No sandbox and no approvals.","name":"full","value":"full"}],"type":"select"}],"modes":{"availableModes":[{"description":"Read files; change nothing.","id":"read-only","name":"read-only"},{"description":"Edit the workspace; ask before anything beyond it.","id":"workspace","name":"workspace"},{"description":"No sandbox and no approvals.","id":"full","name":"full"}],"currentModeId":"workspace"}}`,
	}
	if got := tap.take(); !slices.Equal(got, wantReplay) {
		t.Errorf("replay\n got %q\nwant %q", got, wantReplay)
	}

	// session/cancel reaches the Agent.
	if err := conn.Cancel(ctx, acp.CancelNotification{SessionId: "s1"}); err != nil {
		t.Fatal(err)
	}
	for {
		agent.mu.Lock()
		n := len(agent.cancelled)
		agent.mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("Cancel never reached the agent")
		case <-time.After(10 * time.Millisecond):
		}
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.cancelled) != 1 || agent.cancelled[0] != "s1" {
		t.Errorf("Cancel calls %v; want [s1]", agent.cancelled)
	}
}
