package serve_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/acpbridge/external"
	"github.com/wecodex/wecodex/acpbridge/internal/bridgetest"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// Pictures go through `wecodex codex-acp` as ACP image blocks (it declares
// promptCapabilities.image, so the external client sends them) and reach
// the model byte for byte. `wecodex codex-acp` saves each block in the
// session's workspace under attachments/: a picture already there (the bot
// saved it) is reused by its name, one from elsewhere is copied in.
func TestImagePromptThroughWecodexCodexACP(t *testing.T) {
	h := codextest.Start(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Two pictures."))))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := startWecodexACP(t, ctx, h, external.Options{})
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(h.Workspace, "attachments", "inside.png")
	outside := filepath.Join(t.TempDir(), "outside.png")
	pics := [][]byte{codextest.WritePicture(t, inside, 1), codextest.WritePicture(t, outside, 77)}

	rec := &bridgetest.Recorder{Permit: bridgetest.Deciding(acpbridge.ApprovalAllow)}
	reason, err := a.Prompt(ctx, id, acpbridge.Prompt{Text: "Compare them.", Images: []acpbridge.Image{
		{Path: inside, MIME: "image/png"}, {Path: outside, MIME: "image/png"},
	}}, rec)
	if err != nil || reason != acp.StopReasonEndTurn {
		t.Fatalf("prompt = %q, %v; updates %q", reason, err, rec.Lines())
	}
	if got, want := answerKinds(rec), []string{"message: Two pictures."}; !slices.Equal(got, want) {
		t.Errorf("updates %q, want %q", got, want)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	copied := filepath.Join(h.Workspace, "attachments", "outside.png")
	wantText := "Compare them." +
		`<image name=[Image #1] path="` + inside + `"></image>` +
		`<image name=[Image #2] path="` + copied + `"></image>`
	if reqs[0].UserText != wantText {
		t.Errorf("the model read %q, want %q", reqs[0].UserText, wantText)
	}
	got := reqs[0].UserImages
	if len(got) != 2 || !bytes.Equal(got[0].Data, pics[0]) || !bytes.Equal(got[1].Data, pics[1]) {
		t.Fatalf("the model got %d pictures, want exactly the two sent, in order", len(got))
	}
	entries, err := os.ReadDir(filepath.Dir(inside))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"inside.png", "outside.png"}) {
		t.Fatalf("attachments/ holds %q, want the reused and the copied picture", names)
	}
}
