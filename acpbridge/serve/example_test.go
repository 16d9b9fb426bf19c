package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/wecodex/wecodex/acpbridge/serve"
	"github.com/wecodex/wecodex/internal/echoagent"
)

// Serving an Agent as an ACP agent: a client writes newline-delimited
// JSON-RPC to in and reads the answers, and the session's updates before the
// prompt's result, from out. `wecodex codex-acp` serves Codex this way on
// stdio.
func ExampleServeACP() {
	dir, err := os.MkdirTemp("", "wecodex-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		_ = serve.ServeACP(context.Background(), &echoagent.Agent{}, inR, outW, nil, serve.Options{Version: "example"})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	call := func(id int, method string, params any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(b, '\n')); err != nil {
			panic(err)
		}
		for lines.Scan() {
			var m struct {
				ID     int             `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				panic(err)
			}
			if m.Method != "" {
				var p struct {
					Update struct {
						Kind    string `json:"sessionUpdate"`
						Content struct{ Text string }
					}
				}
				_ = json.Unmarshal(m.Params, &p)
				fmt.Printf("%s: %s %q\n", m.Method, p.Update.Kind, p.Update.Content.Text)
				continue
			}
			if m.ID == id {
				fmt.Printf("%s -> %s\n", method, m.Result)
				return
			}
		}
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	call(2, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	call(3, "session/prompt", map[string]any{"sessionId": "echo-1", "prompt": []any{map[string]any{"type": "text", "text": "why?"}}})
	inW.Close()
	// Output:
	// initialize -> {"agentCapabilities":{"auth":{},"loadSession":true,"mcpCapabilities":{},"promptCapabilities":{"image":true},"sessionCapabilities":{}},"agentInfo":{"name":"wecodex","version":"example"},"authMethods":[],"protocolVersion":1}
	// session/new -> {"configOptions":[{"category":"mode","currentValue":"workspace","id":"mode","name":"Mode","options":[{"description":"Read files; change nothing.","name":"read-only","value":"read-only"},{"description":"Edit the workspace; ask before anything beyond it.","name":"workspace","value":"workspace"},{"description":"No sandbox and no approvals.","name":"full","value":"full"}],"type":"select"}],"modes":{"availableModes":[{"description":"Read files; change nothing.","id":"read-only","name":"read-only"},{"description":"Edit the workspace; ask before anything beyond it.","id":"workspace","name":"workspace"},{"description":"No sandbox and no approvals.","id":"full","name":"full"}],"currentModeId":"workspace"},"sessionId":"echo-1"}
	// session/update: available_commands_update ""
	// session/update: agent_thought_chunk "Reading the question."
	// session/update: agent_message_chunk "answer to: why?"
	// session/prompt -> {"stopReason":"end_turn"}
}
