package acpbridge_test

import (
	"encoding/json"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
)

func TestPhaseFromMeta(t *testing.T) {
	tests := []struct {
		name      string
		meta      string // JSON
		wantPhase string
		wantOK    bool
	}{
		{"codex-acp 1.x commentary", `{"codex":{"phase":"commentary"}}`, "commentary", true},
		{"codex-acp 1.x final answer", `{"codex":{"phase":"final_answer"}}`, "final_answer", true},
		{"jetbrains air", `{"jetbrains":{"air":{"phase":"commentary"}}}`, "commentary", true},
		{"codex wins over jetbrains", `{"codex":{"phase":"final_answer"},"jetbrains":{"air":{"phase":"commentary"}}}`, "final_answer", true},
		{"codex not a string falls back to jetbrains", `{"codex":{"phase":null},"jetbrains":{"air":{"phase":"commentary"}}}`, "commentary", true},
		{"empty string is a phase", `{"codex":{"phase":""}}`, "", true},
		{"null phase", `{"codex":{"phase":null}}`, "", false},
		{"number phase", `{"codex":{"phase":3}}`, "", false},
		{"codex not an object", `{"codex":"commentary"}`, "", false},
		{"jetbrains without air", `{"jetbrains":{"phase":"commentary"}}`, "", false},
		{"other vendor", `{"zed":{"phase":"commentary"}}`, "", false},
		{"empty", `{}`, "", false},
		{"nil", `null`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var meta map[string]any
			if err := json.Unmarshal([]byte(tt.meta), &meta); err != nil {
				t.Fatal(err)
			}
			phase, ok := acpbridge.PhaseFromMeta(meta)
			if phase != tt.wantPhase || ok != tt.wantOK {
				t.Errorf("PhaseFromMeta(%s) = %q, %v; want %q, %v", tt.meta, phase, ok, tt.wantPhase, tt.wantOK)
			}
		})
	}
}

// decodeUpdate decodes a session update the way the SDK does on the wire.
func decodeUpdate(t *testing.T, raw string) acp.SessionUpdate {
	t.Helper()
	var u acp.SessionUpdate
	if err := json.Unmarshal([]byte(raw), &u); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return u
}

func TestRouteByMetaPhase(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{
			"commentary message becomes a thought, id and meta kept",
			`{"sessionUpdate":"agent_message_chunk","messageId":"msg_1","content":{"type":"text","text":"I will look."},"_meta":{"codex":{"phase":"commentary"}}}`,
			`{"_meta":{"codex":{"phase":"commentary"}},"content":{"text":"I will look.","type":"text"},"messageId":"msg_1","sessionUpdate":"agent_thought_chunk"}`,
		},
		{
			"jetbrains commentary becomes a thought",
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Checking"},"_meta":{"jetbrains":{"air":{"phase":"commentary"}}}}`,
			`{"_meta":{"jetbrains":{"air":{"phase":"commentary"}}},"content":{"text":"Checking","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
		},
		{
			"final answer stays a message",
			`{"sessionUpdate":"agent_message_chunk","messageId":"msg_2","content":{"type":"text","text":"Done."},"_meta":{"codex":{"phase":"final_answer"}}}`,
			`{"_meta":{"codex":{"phase":"final_answer"}},"content":{"text":"Done.","type":"text"},"messageId":"msg_2","sessionUpdate":"agent_message_chunk"}`,
		},
		{
			"unknown phase stays a message",
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"codex":{"phase":"draft"}}}`,
			`{"_meta":{"codex":{"phase":"draft"}},"content":{"text":"x","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
		},
		{
			"no phase: unchanged",
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"plain"}}`,
			`{"content":{"text":"plain","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
		},
		{
			"a thought is never promoted",
			`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"},"_meta":{"codex":{"phase":"final_answer"}}}`,
			`{"_meta":{"codex":{"phase":"final_answer"}},"content":{"text":"hmm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bridgetest.Encode(t, acpbridge.RouteByMetaPhase(decodeUpdate(t, tt.in)))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestNoticeRoundTrip(t *testing.T) {
	for _, n := range []acpbridge.Notice{
		{Level: acpbridge.NoticeWarning, Text: "model metadata not found"},
		{Level: acpbridge.NoticeError, Text: "turn failed"},
		{Level: acpbridge.NoticeInfo, Text: "approved: rm -rf build"},
	} {
		wire := bridgetest.Encode(t, acpbridge.NoticeUpdate(n))
		want := `{"_meta":{"wecodex":{"notice":"` + string(n.Level) + `"}},"content":{"text":"` + n.Text + `","type":"text"},"sessionUpdate":"agent_thought_chunk"}`
		if wire != want {
			t.Errorf("wire = %s\nwant   %s", wire, want)
		}
		got, ok := acpbridge.NoticeFromUpdate(decodeUpdate(t, wire))
		if !ok || got != n {
			t.Errorf("NoticeFromUpdate = %+v, %v; want %+v", got, ok, n)
		}
	}
	// A plain thought is not a notice.
	if n, ok := acpbridge.NoticeFromUpdate(decodeUpdate(t, `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"x"}}`)); ok {
		t.Errorf("plain thought read as notice %+v", n)
	}
}

func TestUpdateKindRejectsUnknownDiscriminator(t *testing.T) {
	tests := []struct {
		raw      string
		wantKind string
		wantOK   bool
	}{
		{`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}`, "user_message_chunk", true},
		{`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`, "agent_message_chunk", true},
		{`{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls"}`, "tool_call", true},
		{`{"sessionUpdate":"plan","entries":[]}`, "plan", true},
		// The SDK decodes these as UserMessageChunk / ToolCallUpdate.
		{`{"sessionUpdate":"agent_future_chunk","content":{"type":"text","text":"hi"}}`, "agent_future_chunk", false},
		{`{"sessionUpdate":"tool_call_future","toolCallId":"c1"}`, "tool_call_future", false},
	}
	for _, tt := range tests {
		kind, ok := acpbridge.UpdateKind(decodeUpdate(t, tt.raw))
		if kind != tt.wantKind || ok != tt.wantOK {
			t.Errorf("UpdateKind(%s) = %q, %v; want %q, %v", tt.raw, kind, ok, tt.wantKind, tt.wantOK)
		}
	}
}
