package codextest

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// wireItem is the part of an app-server ThreadItem the smoke tests check.
type wireItem struct {
	Type             string  `json:"type"`
	ID               string  `json:"id"`
	Text             string  `json:"text"`
	Phase            *string `json:"phase"`
	Command          string  `json:"command"`
	Status           string  `json:"status"`
	AggregatedOutput *string `json:"aggregatedOutput"`
	ExitCode         *int    `json:"exitCode"`
	CommandActions   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	} `json:"commandActions"`
}

type itemEvent struct {
	Method string
	Item   wireItem
}

// itemEvents returns the item/started and item/completed events of msgs, in
// order.
func itemEvents(t *testing.T, msgs []rpcMessage) []itemEvent {
	t.Helper()
	var out []itemEvent
	for _, m := range msgs {
		if m.Method != "item/started" && m.Method != "item/completed" {
			continue
		}
		var p struct {
			Item wireItem `json:"item"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("decode %s params %s: %v", m.Method, m.Params, err)
		}
		out = append(out, itemEvent{m.Method, p.Item})
	}
	return out
}

func phaseOf(it wireItem) string {
	if it.Phase == nil {
		return "<null>"
	}
	return *it.Phase
}

// agentMessages summarises the agentMessage item events as
// "method phase text" lines.
func agentMessages(events []itemEvent) []string {
	var out []string
	for _, e := range events {
		if e.Item.Type == "agentMessage" {
			out = append(out, e.Method+" "+phaseOf(e.Item)+" "+e.Item.Text)
		}
	}
	return out
}

// deltaTexts concatenates item/agentMessage/delta deltas per item id, and
// checks each delta carries exactly the fields the phase-routing rule assumes.
func deltaTexts(t *testing.T, msgs []rpcMessage) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, m := range msgs {
		if m.Method != "item/agentMessage/delta" {
			continue
		}
		var p map[string]any
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatalf("decode delta %s: %v", m.Params, err)
		}
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if want := []string{"delta", "itemId", "threadId", "turnId"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("item/agentMessage/delta params have fields %v, want %v", keys, want)
		}
		texts[p["itemId"].(string)] += p["delta"].(string)
	}
	return texts
}

func turnStatus(t *testing.T, msgs []rpcMessage) string {
	t.Helper()
	last := msgs[len(msgs)-1]
	var p struct {
		Turn struct {
			Status string `json:"status"`
		} `json:"turn"`
	}
	if err := json.Unmarshal(last.Params, &p); err != nil {
		t.Fatalf("decode turn/completed %s: %v", last.Params, err)
	}
	return p.Turn.Status
}

// TestSmokeCommentaryCommandFinalAnswer runs one real `codex app-server` turn
// against the scripted model: commentary, a command, then the final answer.
func TestSmokeCommentaryCommandFinalAnswer(t *testing.T) {
	t.Parallel()
	const prompt = "What does the workspace say?"
	h := Start(t, sm.Sequence(
		sm.Reply(
			sm.Message(sm.PhaseCommentary, "I will inspect the workspace."),
			sm.ExecCommand("call_echo", "echo hello"),
		),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "The workspace says hello.")),
	))
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "never", "workspace-write")
	msgs := c.runTurn(thread, prompt, "")
	events := itemEvents(t, msgs)

	wantMessages := []string{
		"item/started commentary ",
		"item/completed commentary I will inspect the workspace.",
		"item/started final_answer ",
		"item/completed final_answer The workspace says hello.",
	}
	if got := agentMessages(events); !reflect.DeepEqual(got, wantMessages) {
		t.Errorf("agentMessage events:\n got %q\nwant %q", got, wantMessages)
	}

	// Deltas carry no phase: only the item id ties them to item/started.
	wantDeltas := map[string]string{}
	for _, e := range events {
		if e.Item.Type == "agentMessage" && e.Method == "item/completed" {
			wantDeltas[e.Item.ID] = e.Item.Text
		}
	}
	if got := deltaTexts(t, msgs); !reflect.DeepEqual(got, wantDeltas) {
		t.Errorf("agentMessage deltas by item:\n got %q\nwant %q", got, wantDeltas)
	}

	var ran []wireItem
	for _, e := range events {
		if e.Item.Type == "commandExecution" && e.Method == "item/completed" {
			ran = append(ran, e.Item)
		}
	}
	if len(ran) != 1 {
		t.Fatalf("completed commandExecution items: got %d, want 1 (events %+v)", len(ran), events)
	}
	cmd := ran[0]
	if cmd.ID != "call_echo" || cmd.Status != "completed" || cmd.ExitCode == nil || *cmd.ExitCode != 0 ||
		cmd.AggregatedOutput == nil || *cmd.AggregatedOutput != "hello\n" ||
		len(cmd.CommandActions) != 1 || cmd.CommandActions[0].Command != "echo hello" {
		t.Errorf("commandExecution item = %+v, want id call_echo, completed, exit 0, output \"hello\\n\", action \"echo hello\"", cmd)
	}

	if got := turnStatus(t, msgs); got != "completed" {
		t.Errorf("turn/completed status = %q, want completed", got)
	}

	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests: got %d, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.UserText != prompt {
			t.Errorf("model request %d latest user message = %q, want %q", i+1, r.UserText, prompt)
		}
	}
	if len(reqs[0].CallOutputs) != 0 {
		t.Errorf("first model request carries call outputs %+v, want none", reqs[0].CallOutputs)
	}
	out, ok := reqs[1].CallOutput("call_echo")
	if !ok || !strings.Contains(out, "hello") {
		t.Errorf("second model request: function_call_output for call_echo = %q (present %v), want it to contain hello", out, ok)
	}
}

// TestSmokeEscalatedCommandAsksApproval checks that an escalated exec_command
// makes Codex ask the client before running it, and that accepting runs it.
func TestSmokeEscalatedCommandAsksApproval(t *testing.T) {
	t.Parallel()
	h := StartWith(t, sm.Sequence(
		sm.Reply(sm.EscalatedExecCommand("call_up", "echo escalated", "Need to leave the sandbox.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Done.")),
	), sm.HomeOptions{ApprovalPolicy: "on-request"})
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "on-request", "workspace-write")
	msgs := c.runTurn(thread, "Run it outside the sandbox", "accept")

	var approvals []rpcMessage
	for _, m := range msgs {
		if len(m.ID) > 0 && m.Method != "" {
			approvals = append(approvals, m)
		}
	}
	if len(approvals) != 1 || approvals[0].Method != "item/commandExecution/requestApproval" {
		t.Fatalf("server requests = %+v, want one item/commandExecution/requestApproval", approvals)
	}
	var p struct {
		ThreadID string `json:"threadId"`
		ItemID   string `json:"itemId"`
		Reason   string `json:"reason"`
		Command  string `json:"command"`
	}
	if err := json.Unmarshal(approvals[0].Params, &p); err != nil {
		t.Fatalf("decode approval params: %v", err)
	}
	if p.ThreadID != thread || p.ItemID != "call_up" || p.Reason != "Need to leave the sandbox." || !strings.Contains(p.Command, "echo escalated") {
		t.Errorf("approval params = %s", approvals[0].Params)
	}
	if got := turnStatus(t, msgs); got != "completed" {
		t.Errorf("turn/completed status = %q, want completed", got)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 2 {
		t.Fatalf("model requests: got %d, want 2", len(reqs))
	}
	if out, ok := reqs[1].CallOutput("call_up"); !ok || !strings.Contains(out, "escalated") {
		t.Errorf("function_call_output for call_up = %q (present %v), want the command's output", out, ok)
	}
	t.Logf("approval request: %s", approvals[0].Params)
}
