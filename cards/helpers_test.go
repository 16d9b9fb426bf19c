package cards

import (
	acp "github.com/coder/acp-go-sdk"
)

// The caps WeCom's channels pass (the AI-bot stream, the self-built app's
// markdown message), for tests that render as they do.
const (
	streamMax   = 20480
	markdownMax = 2048
)

func msg(id, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{
		Content: acp.TextBlock(text), MessageId: idPtr(id), SessionUpdate: "agent_message_chunk"}}
}

func thought(id, text string) acp.SessionUpdate {
	return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
		Content: acp.TextBlock(text), MessageId: idPtr(id), SessionUpdate: "agent_thought_chunk"}}
}

func idPtr(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}
