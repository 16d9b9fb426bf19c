package serve_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// currentValues renders each config option as id=currentValue.
func currentValues(opts []acp.SessionConfigOption) []string {
	var out []string
	for _, o := range opts {
		if o.Select != nil {
			out = append(out, string(o.Select.Id)+"="+string(o.Select.CurrentValue))
		}
	}
	return out
}

// A session's mode, model and effort over ACP on the real Codex: offered in
// session/new, refused with the reason when unknown, switched by
// set_config_option and by the /mode command (answered without a turn), and
// sent with the next turn; session/list lists the session.
func TestSessionControlsOnCodex(t *testing.T) {
	review := `{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Nothing to fix.","overall_confidence_score":0.9}`
	h := codextest.Start(t, sm.Sequence(
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "done")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, review)),
	))
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv()})
	t.Cleanup(func() { agent.Close() })
	conn, tap := serveOverPipes(t, agent, &wireClient{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	init, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if init.AgentCapabilities.SessionCapabilities.List == nil {
		t.Error("initialize does not advertise session/list")
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: h.Workspace, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.SessionId
	if got, want := currentValues(sess.ConfigOptions), []string{"mode=workspace", "model=" + sm.Model, "reasoning_effort=medium"}; !slices.Equal(got, want) {
		t.Errorf("session/new options %q; want %q", got, want)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "workspace" || len(sess.Modes.AvailableModes) != 3 {
		t.Errorf("session/new modes %+v", sess.Modes)
	}
	if sess.Models == nil || sess.Models.CurrentModelId != sm.Model {
		t.Errorf("session/new models %+v", sess.Models)
	}

	_, err = conn.SetSessionConfigOption(ctx, setValue(id, "model", "gpt-4-nonesuch"))
	var reqErr *acp.RequestError
	if !errors.As(err, &reqErr) || reqErr.Code != -32602 || !strings.Contains(reqErr.Error(), `unknown model \"gpt-4-nonesuch\"`) {
		t.Errorf("unknown model: %v; want invalid params naming it", err)
	}
	set, err := conn.SetSessionConfigOption(ctx, setValue(id, "reasoning_effort", "high"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := currentValues(set.ConfigOptions), []string{"mode=workspace", "model=" + sm.Model, "reasoning_effort=high"}; !slices.Equal(got, want) {
		t.Errorf("after set effort %q; want %q", got, want)
	}
	// The older session/set_model; the chosen effort stays, the new model
	// supporting it.
	if _, err := conn.UnstableSetSessionModel(ctx, acp.UnstableSetSessionModelRequest{SessionId: id, ModelId: "gpt-6.1-terra"}); err != nil {
		t.Fatal(err)
	}
	tap.take()

	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("/mode full")}})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("/mode full = %v, %v", resp, err)
	}
	lines := tap.take()
	if len(lines) != 4 || !strings.Contains(lines[0], `"name":"status"},{"description":"Review the uncommitted changes, or what the instructions ask.","input":{"hint":"optional review instructions"},"name":"review"},{"description":"Summarize the conversation so far to free the context.","name":"compact"}],"sessionUpdate":"available_commands_update"`) || !strings.Contains(lines[1], `"currentValue":"full"`) ||
		!strings.Contains(lines[2], `"text":"Mode: full (modes: read-only, workspace, full)."`) || lines[3] != `response {"stopReason":"end_turn"}` {
		t.Errorf("/mode full on the wire:\n%s", strings.Join(lines, "\n"))
	}
	if n := len(h.Server.ModelRequests()); n != 0 {
		t.Errorf("/mode reached the model: %d requests", n)
	}

	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("go")}}); err != nil {
		t.Fatal(err)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests; want 1", len(reqs))
	}
	if got := reqs[0].Model + " " + reqs[0].Effort + ", " + reqs[0].Permissions(); got != "gpt-6.1-terra high, danger-full-access, approval never" {
		t.Errorf("the turn ran %q", got)
	}

	// /review is Codex's own review, a turn of its own: the review is the
	// answer.
	tap.take()
	if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("/review the greeting")}}); err != nil {
		t.Fatal(err)
	}
	var answer []string
	for _, l := range tap.take() {
		if strings.Contains(l, `"agent_message_chunk"`) {
			answer = append(answer, l)
		}
	}
	if len(answer) != 1 || !strings.Contains(answer[0], `"text":"Nothing to fix."`) {
		t.Errorf("/review answer %q", answer)
	}
	if reqs := h.Server.ModelRequests(); len(reqs) != 2 || !strings.Contains(reqs[1].UserText, "the greeting") {
		t.Errorf("/review's model request: %d requests", len(reqs))
	}

	list, err := conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &h.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != id || list.Sessions[0].Title == nil || *list.Sessions[0].Title != "go" {
		t.Errorf("session/list = %+v; want the one session, titled go", list.Sessions)
	}
}

func setValue(id acp.SessionId, option, value string) acp.SetSessionConfigOptionRequest {
	return acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: acp.SessionConfigId(option), Value: acp.SessionConfigValueId(value),
	}}
}
