package codextest

import (
	"encoding/json"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// TestTwoThreadsStreamAtOnce runs two turns on two threads of one app-server
// at the same time, each answered by its own ByPrompt script, and checks
// that each thread gets its own answer. Both streams are held at gates until
// both have started, so they really overlap.
func TestTwoThreadsStreamAtOnce(t *testing.T) {
	t.Parallel()
	gateA, gateB := sm.NewGate(), sm.NewGate()
	h := Start(t, sm.ByPrompt(map[string][]sm.Response{
		"apples":  {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Apples are red.")).WithHold(1, gateA)},
		"bananas": {sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Bananas are yellow.")).WithHold(1, gateB)},
	}))
	c := startAppServer(t, h)
	c.initialize()
	threadA := c.startThread(h.Workspace, "never", "workspace-write")
	threadB := c.startThread(h.Workspace, "never", "workspace-write")
	var msgs []rpcMessage
	c.call("turn/start", map[string]any{"threadId": threadA, "input": []map[string]any{{"type": "text", "text": "Tell me about apples"}}}, &msgs)
	c.call("turn/start", map[string]any{"threadId": threadB, "input": []map[string]any{{"type": "text", "text": "Tell me about bananas"}}}, &msgs)
	<-gateA.Reached()
	<-gateB.Reached()
	gateA.Release()
	gateB.Release()

	completed := map[string]string{} // thread → turn status
	final := map[string]string{}     // thread → completed agentMessage text
	for _, m := range msgs {
		collectThreadResult(t, m, completed, final)
	}
	for len(completed) < 2 {
		collectThreadResult(t, c.next(), completed, final)
	}
	if completed[threadA] != "completed" || completed[threadB] != "completed" {
		t.Errorf("turn statuses %v, want both completed", completed)
	}
	if final[threadA] != "Apples are red." || final[threadB] != "Bananas are yellow." {
		t.Errorf("answers by thread %q, want apples on %s and bananas on %s", final, threadA, threadB)
	}
}

func collectThreadResult(t *testing.T, m rpcMessage, completed, final map[string]string) {
	t.Helper()
	var p struct {
		ThreadID string   `json:"threadId"`
		Item     wireItem `json:"item"`
		Turn     struct {
			Status string `json:"status"`
		} `json:"turn"`
	}
	switch m.Method {
	case "turn/completed", "item/completed":
	default:
		return
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("decode %s: %v", m.Method, err)
	}
	if m.Method == "turn/completed" {
		completed[p.ThreadID] = p.Turn.Status
	} else if p.Item.Type == "agentMessage" {
		final[p.ThreadID] = p.Item.Text
	}
}
