package codextest

import (
	"encoding/json"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// TestInterruptHeldStream holds the model's answer mid-stream at a gate,
// interrupts the turn, and expects Codex to end it as interrupted with the
// streamed part only.
func TestInterruptHeldStream(t *testing.T) {
	t.Parallel()
	gate := sm.NewGate()
	h := Start(t, sm.Sequence(
		sm.Reply(sm.MessageDeltas(sm.PhaseFinalAnswer, "Part", " one", " and", " part", " two.")).WithHold(2, gate),
	))
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "never", "workspace-write")
	res := c.call("turn/start", map[string]any{
		"threadId": thread,
		"input":    []map[string]any{{"type": "text", "text": "Say two parts"}},
	}, nil)
	var started struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	if err := json.Unmarshal(res, &started); err != nil || started.Turn.ID == "" {
		t.Fatalf("turn/start result %s: %v", res, err)
	}

	// Read until Codex has forwarded both deltas sent before the gate.
	var got string
	for got != "Part one" {
		m := c.next()
		if m.Method == "item/agentMessage/delta" {
			var p struct{ Delta string }
			_ = json.Unmarshal(m.Params, &p)
			got += p.Delta
		}
	}
	<-gate.Reached()
	c.call("turn/interrupt", map[string]any{"threadId": thread, "turnId": started.Turn.ID}, nil)
	var msgs []rpcMessage
	for len(msgs) == 0 || msgs[len(msgs)-1].Method != "turn/completed" {
		msgs = append(msgs, c.next())
	}
	if status := turnStatus(t, msgs); status != "interrupted" {
		t.Errorf("turn/completed status = %q, want interrupted", status)
	}
	for _, m := range msgs {
		if m.Method == "item/agentMessage/delta" {
			t.Errorf("delta after interrupt: %s", m.Params)
		}
	}
}
