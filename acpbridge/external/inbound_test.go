package external

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/wecodex/wecodex/acpbridge"
)

// sdkInbound is what the SDK's types make of a session/update's params: the
// decoding the scanner must agree with.
func sdkInbound(params []byte) (inboundUpdate, bool) {
	var n acp.SessionNotification
	if json.Unmarshal(params, &n) != nil {
		return inboundUpdate{}, false
	}
	if _, ok := acpbridge.UpdateKind(n.Update); !ok {
		return inboundUpdate{}, false
	}
	return routeUpdate(n), true
}

// comparable renders an inboundUpdate for comparison. The scanner drops the
// agent's _meta from a chunk (the card reads none of it), so it is dropped
// here too.
func comparable(t testing.TB, in inboundUpdate) string {
	u := in.update
	if c := u.AgentMessageChunk; c != nil {
		cc := *c
		cc.Meta = nil
		u.AgentMessageChunk = &cc
	}
	if c := u.AgentThoughtChunk; c != nil {
		cc := *c
		cc.Meta = nil
		u.AgentThoughtChunk = &cc
	}
	var b []byte
	var err error
	if in.notice != nil {
		b, err = json.Marshal(in.notice)
	} else {
		b, err = json.Marshal(u)
	}
	if err != nil {
		t.Fatal(err)
	}
	unphased := "phased"
	if in.unphased {
		unphased = "unphased"
	}
	return string(in.session) + " " + unphased + " " + string(b)
}

// checkScan asserts that whenever the scanner reads params, it reads them
// exactly as the SDK's types do, and reports whether it did.
func checkScan(t testing.TB, params []byte) bool {
	var seen seenStrings
	fast, ok := scanUpdate(params, &seen)
	if !ok {
		return false
	}
	slow, sok := sdkInbound(params)
	if !sok {
		t.Fatalf("scanner read %s, which the SDK rejects", params)
	}
	if f, s := comparable(t, fast), comparable(t, slow); f != s {
		t.Fatalf("params %s\nscanner %s\nSDK     %s", params, f, s)
	}
	// A second read through the same cache must not differ.
	again, _ := scanUpdate(params, &seen)
	if f, a := comparable(t, fast), comparable(t, again); f != a {
		t.Fatalf("params %s read twice: %s, then %s", params, f, a)
	}
	return true
}

const sid = `"sessionId":"s-1"`

// scanCases: params and whether the scanner should take them (false: the
// SDK's decode does).
var scanCases = []struct {
	params string
	fast   bool
}{
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"I"}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"x"},"_meta":{"jetbrains":{"air":{"version":1,"phase":"commentary"}}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"codex":{"phase":"final_answer"},"jetbrains":{"air":{"phase":"commentary"}}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"codex":{"phase":null},"jetbrains":{"air":{"phase":"commentary"}}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"codex":{"phase":3}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"codex":{"phase":"draft"}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"codex":{"phase":""}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"},"_meta":{"codex":{"phase":"final_answer"}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"careful"},"_meta":{"wecodex":{"notice":"warning"}}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"esc \"q\" \u00e9 \n"}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","messageId":null,"content":{"type":"text","text":"x"}}}`, true},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"},"content":{"type":"text","text":"b"}}}`, true},
	// The SDK's decode: other kinds and shapes, and keys only encoding/json reads.
	{`{` + sid + `,"update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls","kind":"execute","status":"in_progress"}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png"}}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","annotations":{"priority":1}}}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","TEXT":"b"}}}`, false},
	{`{` + sid + `,"update":{"session\u0055pdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":{"co\u0064ex":{"phase":"commentary"}}}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","messageId":7,"content":{"type":"text","text":"x"}}}`, false},
	{`{` + sid + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"_meta":5}}`, false},
	{`{"sessionId":null,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}`, false},
	{`{` + sid + `}`, false},
}

func TestScanUpdateAgreesWithSDK(t *testing.T) {
	for _, tt := range scanCases {
		if got := checkScan(t, []byte(tt.params)); got != tt.fast {
			t.Errorf("scanner took %s: %v, want %v", tt.params, got, tt.fast)
		}
	}
}

// TestScanUpdateRecorded: every text chunk the real agents sent is read by
// the scanner, exactly as the SDK reads it.
func TestScanUpdateRecorded(t *testing.T) {
	for _, name := range agentRecordings {
		raw, err := os.ReadFile(filepath.Join("testdata", name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		chunks := 0
		for line := range bytes.Lines(raw) {
			method, params, ok := scanEnvelope(line)
			if !ok || method != acp.ClientMethodSessionUpdate {
				continue
			}
			isChunk := bytes.Contains(params, []byte(`"agent_message_chunk"`))
			if got := checkScan(t, params); got != isChunk {
				t.Errorf("%s: scanner took %s: %v, want %v", name, params, got, isChunk)
			}
			if isChunk {
				chunks++
			}
		}
		if chunks < 6 {
			t.Errorf("%s: only %d chunks recorded", name, chunks)
		}
	}
}

func FuzzScanUpdate(f *testing.F) {
	for _, tt := range scanCases {
		f.Add([]byte(tt.params))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			var seen seenStrings
			scanUpdate(params, &seen) // must not panic
			return
		}
		checkScan(t, params)
	})
}

func TestAgentEnvDefaults(t *testing.T) {
	tests := []struct {
		name string
		base []string
		env  map[string]string
		want []string
	}{
		{"defaults added", []string{"PATH=/bin"}, map[string]string{"B": "2", "A": "1"},
			[]string{"PATH=/bin", "A=1", "B=2", "CODEX_ACP_PROMPT_SUGGESTIONS=false", "INITIAL_AGENT_MODE=workspace-write"}},
		{"agent.acp.env wins", nil, map[string]string{"CODEX_ACP_PROMPT_SUGGESTIONS": "true", "INITIAL_AGENT_MODE": "agent"},
			[]string{"CODEX_ACP_PROMPT_SUGGESTIONS=true", "INITIAL_AGENT_MODE=agent"}},
		{"our environment wins", []string{"CODEX_ACP_PROMPT_SUGGESTIONS=true"}, nil,
			[]string{"CODEX_ACP_PROMPT_SUGGESTIONS=true", "INITIAL_AGENT_MODE=workspace-write"}},
	}
	for _, tt := range tests {
		if got := agentEnv(tt.base, tt.env); !slices.Equal(got, tt.want) {
			t.Errorf("%s: agentEnv = %q, want %q", tt.name, got, tt.want)
		}
	}
}
