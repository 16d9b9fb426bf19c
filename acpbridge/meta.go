package acpbridge

import (
	acp "github.com/coder/acp-go-sdk"
)

// PhaseFromMeta reads the Codex message phase an ACP agent attached to a chunk's
// _meta. codex-acp 1.1.1–1.6.x sent it as _meta.codex.phase; agents written
// for JetBrains AIR send _meta.jetbrains.air.phase. ok is false when neither
// key holds a string, so the caller keeps the chunk as the agent sent it.
func PhaseFromMeta(meta map[string]any) (phase string, ok bool) {
	if p, ok := stringAt(meta, "codex", "phase"); ok {
		return p, true
	}
	return stringAt(meta, "jetbrains", "air", "phase")
}

// stringAt walks nested JSON objects (as decoded into map[string]any) along
// keys and returns the string found at the end.
func stringAt(m map[string]any, keys ...string) (string, bool) {
	var cur any = m
	for _, k := range keys {
		obj, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		if cur, ok = obj[k]; !ok {
			return "", false
		}
	}
	s, ok := cur.(string)
	return s, ok
}

// RouteByMetaPhase applies the phase rule (AgentText) to an agent_message_chunk
// that carries a phase in its _meta, so commentary from an external agent lands
// in the progress section exactly as it does from the built-in bridge. Every
// other update, and a chunk without a phase, is returned unchanged.
func RouteByMetaPhase(u acp.SessionUpdate) acp.SessionUpdate {
	c := u.AgentMessageChunk
	if c == nil {
		return u
	}
	phase, ok := PhaseFromMeta(c.Meta)
	if !ok {
		return u
	}
	var id string
	if c.MessageId != nil {
		id = *c.MessageId
	}
	routed := AgentText(Phase(phase), id, "")
	// AgentText decides the kind; the content (text or not) and _meta are the
	// agent's own.
	if routed.AgentThoughtChunk != nil {
		routed.AgentThoughtChunk.Content = c.Content
		routed.AgentThoughtChunk.Meta = c.Meta
	} else {
		routed.AgentMessageChunk.Content = c.Content
		routed.AgentMessageChunk.Meta = c.Meta
	}
	return routed
}

// NoticeMetaKey is the _meta key under which wecodex marks a thought chunk as a
// notice: {"wecodex": {"notice": "<level>"}}. Notices travel as thoughts so a
// plain ACP client shows them as progress, never as answer text.
const NoticeMetaKey = "wecodex"

// NoticeUpdate encodes a Notice as an agent_thought_chunk marked in _meta, the
// form `wecodex codex-acp` sends notices in.
func NoticeUpdate(n Notice) acp.SessionUpdate {
	return acp.SessionUpdate{AgentThoughtChunk: &acp.SessionUpdateAgentThoughtChunk{
		Content:       acp.TextBlock(n.Text),
		Meta:          map[string]any{NoticeMetaKey: map[string]any{"notice": string(n.Level)}},
		SessionUpdate: "agent_thought_chunk",
	}}
}

// NoticeFromUpdate recognises a notice encoded by NoticeUpdate. An unknown level
// is kept as sent; the card decides how to show it.
func NoticeFromUpdate(u acp.SessionUpdate) (Notice, bool) {
	t := u.AgentThoughtChunk
	if t == nil {
		return Notice{}, false
	}
	level, ok := stringAt(t.Meta, NoticeMetaKey, "notice")
	if !ok {
		return Notice{}, false
	}
	var text string
	if t.Content.Text != nil {
		text = t.Content.Text.Text
	}
	return Notice{Level: NoticeLevel(level), Text: text}, true
}

// UpdateKind returns the sessionUpdate discriminator of u, and ok=false for an
// update kind this SDK version does not know. acp-go-sdk decodes an unknown
// sessionUpdate that has a "content" field as a UserMessageChunk (and other
// shapes as whichever variant's fields match), so the variant alone cannot be
// trusted: the discriminator the agent actually sent must be the variant's own.
func UpdateKind(u acp.SessionUpdate) (kind string, ok bool) {
	var got, want string
	switch {
	case u.UserMessageChunk != nil:
		got, want = u.UserMessageChunk.SessionUpdate, "user_message_chunk"
	case u.AgentMessageChunk != nil:
		got, want = u.AgentMessageChunk.SessionUpdate, "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		got, want = u.AgentThoughtChunk.SessionUpdate, "agent_thought_chunk"
	case u.ToolCall != nil:
		got, want = u.ToolCall.SessionUpdate, "tool_call"
	case u.ToolCallUpdate != nil:
		got, want = u.ToolCallUpdate.SessionUpdate, "tool_call_update"
	case u.Plan != nil:
		got, want = u.Plan.SessionUpdate, "plan"
	case u.AvailableCommandsUpdate != nil:
		got, want = u.AvailableCommandsUpdate.SessionUpdate, "available_commands_update"
	case u.CurrentModeUpdate != nil:
		got, want = u.CurrentModeUpdate.SessionUpdate, "current_mode_update"
	case u.ConfigOptionUpdate != nil:
		got, want = u.ConfigOptionUpdate.SessionUpdate, "config_option_update"
	case u.SessionInfoUpdate != nil:
		got, want = u.SessionInfoUpdate.SessionUpdate, "session_info_update"
	case u.UsageUpdate != nil:
		got, want = u.UsageUpdate.SessionUpdate, "usage_update"
	default:
		return "", false
	}
	return got, got == want
}
