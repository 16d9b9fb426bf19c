package bridgetest

import (
	"slices"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

func chunk(thought bool, id, text string) acp.SessionUpdate {
	if thought {
		return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{SessionUpdate: "agent_thought_chunk", MessageId: &id, Content: acp.TextBlock(text)}}
	}
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{SessionUpdate: "agent_message_chunk", MessageId: &id, Content: acp.TextBlock(text)}}
}

// Lines merges only consecutive chunks of one kind and message, and keep
// filters by kind, "notice" standing for every notice level.
func TestRecorderLines(t *testing.T) {
	var seen int
	r := &Recorder{OnUpdate: func(acp.SessionUpdate) { seen++ }}
	r.Update(chunk(true, "m1", "Look"))
	r.Update(chunk(true, "m1", "ing"))
	r.Update(chunk(false, "m2", "Do"))
	r.Update(chunk(false, "m3", "ne"))
	r.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "careful"})
	r.Update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: "c1", Title: "ls", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusInProgress}})
	r.Update(chunk(false, "m3", "!"))

	want := []string{"thought: Looking", "message: Do", "message: ne", "notice warning: careful", "tool_call: ls [execute] in_progress", "message: !"}
	if got := r.Lines(); !slices.Equal(got, want) {
		t.Errorf("Lines() = %q, want %q", got, want)
	}
	if got, want := r.Lines("notice", "thought"), []string{"thought: Looking", "notice warning: careful"}; !slices.Equal(got, want) {
		t.Errorf("Lines(notice, thought) = %q, want %q", got, want)
	}
	if seen != 6 {
		t.Errorf("OnUpdate saw %d updates, want 6", seen)
	}
}
