package codex

import (
	"bytes"
	"path/filepath"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// A prompt's pictures reach the model as the request's input_image parts,
// byte for byte, next to the prompt's text: Codex got them as localImage
// items of turn/start.
func TestPromptImagesReachTheModel(t *testing.T) {
	ctx := testCtx(t)
	a, h := newAgent(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Two pictures.")),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Only words."))), sm.HomeOptions{}, Options{})
	var pics [][]byte
	var imgs []acpbridge.Image
	for i, name := range []string{"first.png", "second.png"} {
		p := filepath.Join(h.Workspace, "attachments", name)
		pics = append(pics, codextest.WritePicture(t, p, uint8(1+89*i)))
		imgs = append(imgs, acpbridge.Image{Path: p, MIME: "image/png"})
	}
	id, err := a.NewSession(ctx, h.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	stop, err := a.Prompt(ctx, id, acpbridge.Prompt{Text: "What do these show?", Images: imgs}, rec)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	got := reqs[0]
	// Codex names each picture after the text, by the path it was given.
	wantText := "What do these show?" +
		`<image name=[Image #1] path="` + imgs[0].Path + `"></image>` +
		`<image name=[Image #2] path="` + imgs[1].Path + `"></image>`
	if got.UserText != wantText {
		t.Errorf("user text %q, want %q", got.UserText, wantText)
	}
	if len(got.UserImages) != 2 {
		t.Fatalf("the request carries %d pictures in its user message, want 2; body %s", len(got.UserImages), got.Body)
	}
	for i, img := range got.UserImages {
		if img.MIME != "image/png" || !bytes.Equal(img.Data, pics[i]) {
			t.Errorf("picture %d: %s, %d bytes, want image/png, exactly the %d bytes sent", i, img.MIME, len(img.Data), len(pics[i]))
		}
	}
	// A text prompt after it carries no new picture.
	if _, err := a.Prompt(ctx, id, acpbridge.TextPrompt("And now?"), &recorder{}); err != nil {
		t.Fatal(err)
	}
	if next := h.Server.ModelRequests()[1]; next.UserText != "And now?" || len(next.UserImages) != 0 || len(next.Images) != 2 {
		t.Fatalf("second request: text %q, %d new pictures, %d in all; want the text alone and the first two in history", next.UserText, len(next.UserImages), len(next.Images))
	}
}
