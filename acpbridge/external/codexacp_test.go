package external_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// CodexACPBinEnv points tests at the published @agentclientprotocol/codex-acp;
// the Makefile installs it into .tools/codex-acp.
const CodexACPBinEnv = "WECODEX_TEST_CODEX_ACP_BIN"

func codexACPBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(CodexACPBinEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("codex-acp not installed: %s=%s: %v (run `make tools`)", CodexACPBinEnv, p, err)
		}
		return p
	}
	p := filepath.Join(moduleRoot(t), ".tools", "codex-acp", "node_modules", ".bin", "codex-acp")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("codex-acp not installed: %v: run `make tools`", err)
	}
	return p
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// TestCodexACP260 drives the published codex-acp 2.6.0 over the same offline
// Codex: turns complete, stop reasons and tool calls arrive. To a plain ACP
// client it sends commentary as agent_message_chunk with no phase at all (the
// seed bug, and why the built-in bridge is the default); only to a client
// declaring _meta.jetbrains.air does it attach _meta.jetbrains.air.phase, which
// Agent then routes with the one phase rule.
func TestCodexACP260(t *testing.T) {
	bin := codexACPBin(t)
	tests := []struct {
		name string
		meta map[string]any
		want []string
	}{
		{
			name: "plain client: commentary arrives as answer text",
			meta: map[string]any{}, // declares nothing
			want: []string{
				"message: I will list the files.",
				"tool_call: echo hello-from-exec [execute] in_progress",
				"tool_call_update: completed",
				"message: There is nothing here yet.",
			},
		},
		{
			name: "client declaring jetbrains air: phase in _meta routes commentary to a thought",
			meta: map[string]any{"jetbrains": map[string]any{"air": map[string]any{}}},
			want: []string{
				"thought: I will list the files.",
				"tool_call: echo hello-from-exec [execute] in_progress",
				"tool_call_update: completed",
				"message: There is nothing here yet.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := codextest.Start(t, sm.Sequence(
				sm.Reply(
					sm.Message(sm.PhaseCommentary, "I will list the files."),
					sm.ExecCommand("call_1", "echo hello-from-exec"),
				),
				sm.Reply(sm.Message(sm.PhaseFinalAnswer, "There is nothing here yet.")),
			))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			a, err := external.New(ctx, external.Options{
				Command: []string{bin},
				// Suggestions (AIR clients only) would cost an extra,
				// unscripted model request per turn.
				Env:              bridgetest.HarnessEnv(h, "CODEX_PATH="+h.Bin, "CODEX_ACP_PROMPT_SUGGESTIONS=false"),
				CapabilitiesMeta: tt.meta,
				Log:              bridgetest.Logger(t),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			id, err := a.NewSession(ctx, h.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			rec := &bridgetest.Recorder{Permit: bridgetest.Deciding(acpbridge.ApprovalAllow)}
			reason, err := a.Prompt(ctx, id, acpbridge.TextPrompt("What is in this directory?"), rec)
			if err != nil {
				t.Fatalf("prompt: %v\nupdates: %q", err, rec.Lines())
			}
			if reason != acp.StopReasonEndTurn {
				t.Errorf("stop reason %q; want end_turn", reason)
			}
			// An empty tool_call_update is an output chunk; how many Codex
			// sends is not ours to pin.
			var got []string
			for _, l := range rec.Lines("thought", "message", "tool_call", "tool_call_update", "notice") {
				if l != "tool_call_update" {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("updates\n got %q\nwant %q\n all %q", got, tt.want, rec.Lines())
			}
			reqs := h.Server.ModelRequests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests; want 2", len(reqs))
			}
			if out, ok := reqs[1].CallOutput("call_1"); !ok || !strings.Contains(out, "hello-from-exec") {
				t.Errorf("exec output sent back to the model = %q, %v", out, ok)
			}
		})
	}
}
