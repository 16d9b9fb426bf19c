package acpbridge

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// Phase is the phase Codex gives an agent message item on item/started,
// item/completed and in history. Deltas do not carry it.
type Phase string

const (
	PhaseCommentary    Phase = "commentary"
	PhaseFinalAnswer   Phase = "final_answer"
	PhasePartialAnswer Phase = "partial_answer"
	// PhaseNone stands for a null or missing phase.
	PhaseNone Phase = ""
)

// IsProgress reports whether text of this phase belongs in the card's progress
// section. Only commentary does; every other value, known or not, is answer
// text, so an unexpected phase can never hide the answer.
func (p Phase) IsProgress() bool { return p == PhaseCommentary }

// AgentText is the one phase-routing rule: agent message text of phase p
// becomes an agent_thought_chunk when it is progress, else an
// agent_message_chunk. messageID (the Codex item id) is carried on the chunk.
func AgentText(p Phase, messageID, text string) acp.SessionUpdate {
	var id *string
	if messageID != "" {
		id = &messageID
	}
	if p.IsProgress() {
		return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
			Content: acp.TextBlock(text), MessageId: id, SessionUpdate: "agent_thought_chunk",
		}}
	}
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
		Content: acp.TextBlock(text), MessageId: id, SessionUpdate: "agent_message_chunk",
	}}
}

// PhaseStore remembers each agent message item's phase between its item/started
// and its item/completed, so a translator in another process (or after a
// reconnect) routes the item's deltas the same way. The phase is kept as the raw
// string Codex sent ("" for null), so a store needs no knowledge of this package.
type PhaseStore interface {
	// SetPhase records the phase of an item of a thread.
	SetPhase(ctx context.Context, threadID, itemID, phase string) error
	// Phase returns the recorded phase; ok is false when none is recorded.
	Phase(ctx context.Context, threadID, itemID string) (phase string, ok bool, err error)
	// ForgetPhase drops the record once the item has completed.
	ForgetPhase(ctx context.Context, threadID, itemID string) error
}
