package external_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// A picture reaches the model byte for byte through the published ACP
// agents (agent.kind: acp), which declare promptCapabilities.image: the
// client sends it as an image block.
func TestRealAgentsTakeImagePrompts(t *testing.T) {
	for _, agent := range realAgents {
		t.Run(agent.name, func(t *testing.T) {
			h := codextest.Start(t, answeringTitles(sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "A picture.")))))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			a, _ := startRealAgent(t, ctx, agent, h)
			id, err := a.NewSession(ctx, h.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(h.Workspace, "attachments", "shot.png")
			pic := codextest.WritePicture(t, path, 200)
			rec := &bridgetest.Recorder{Permit: bridgetest.Deciding(acpbridge.ApprovalAllow)}
			reason, err := a.Prompt(ctx, id, acpbridge.Prompt{Text: "What is this?", Images: []acpbridge.Image{{Path: path, MIME: "image/png"}}}, rec)
			if err != nil || reason != acp.StopReasonEndTurn {
				t.Fatalf("prompt = %q, %v; updates %q", reason, err, rec.Lines())
			}
			var turn *sm.Request
			for _, r := range h.Server.ModelRequests() {
				if !strings.Contains(r.UserText, titlePrompt) {
					turn = &r
				}
			}
			if turn == nil || !strings.HasPrefix(turn.UserText, "What is this?") {
				t.Fatalf("no model request for the turn; requests %d", len(h.Server.ModelRequests()))
			}
			if len(turn.UserImages) != 1 || turn.UserImages[0].MIME != "image/png" || !bytes.Equal(turn.UserImages[0].Data, pic) {
				t.Fatalf("the model got %d pictures (text %q), want exactly the one sent", len(turn.UserImages), turn.UserText)
			}
		})
	}
}
