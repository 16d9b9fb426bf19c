package codextest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
)

// imageGenerationItem is the part of an app-server imageGeneration item
// the test checks.
type imageGenerationItem struct {
	Type          string  `json:"type"`
	ID            string  `json:"id"`
	Status        string  `json:"status"`
	SavedPath     *string `json:"savedPath"`
	RevisedPrompt *string `json:"revisedPrompt"`
}

// TestImageGenerationSavesThePicture: the model calls Codex's image tool
// (image_gen.imagegen, offered once EnableImageGeneration is on); the real
// Codex asks the Images API, saves the picture under
// CODEX_HOME/generated_images/<thread>/<call>.png and reports an
// imageGeneration item whose savedPath holds exactly the bytes the API sent.
func TestImageGenerationSavesThePicture(t *testing.T) {
	t.Parallel()
	pic := Picture(t, 42)
	h := Start(t, sm.Sequence(
		sm.Reply(sm.NamespacedFunctionCall("call_ig", "image_gen", "imagegen", `{"prompt":"a small test card","transparent_background":false}`)),
		sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Here is the picture.")),
	))
	h.EnableImageGeneration(t)
	h.Server.GenerateImages(sm.GeneratedImage{PNG: pic, RevisedPrompt: "a small test card"})
	c := startAppServer(t, h)
	c.initialize()
	thread := c.startThread(h.Workspace, "never", "workspace-write")
	msgs := c.runTurn(thread, "draw a card", "")

	var done []imageGenerationItem
	for _, m := range msgs {
		var p struct {
			Item imageGenerationItem `json:"item"`
		}
		if m.Method != "item/completed" || json.Unmarshal(m.Params, &p) != nil || p.Item.Type != "imageGeneration" {
			continue
		}
		done = append(done, p.Item)
	}
	if len(done) != 1 {
		t.Fatalf("completed imageGeneration items: %d, want 1", len(done))
	}
	it := done[0]
	want := filepath.Join(h.Home, "generated_images", thread, "call_ig.png")
	if it.ID != "call_ig" || it.Status != "completed" || it.SavedPath == nil || *it.SavedPath != want {
		t.Fatalf("imageGeneration item %+v (savedPath %v), want id call_ig, completed, savedPath %s", it, it.SavedPath, want)
	}
	if b, err := os.ReadFile(want); err != nil || !bytes.Equal(b, pic) {
		t.Errorf("saved picture: %d bytes (err %v), want the %d bytes the Images API sent", len(b), err, len(pic))
	}
	var asked []string
	for _, r := range h.Server.Requests() {
		if r.Path == "/v1/images/generations" {
			asked = append(asked, string(r.Body))
		}
	}
	const wantBody = `{"prompt":"a small test card","background":"opaque","model":"gpt-image-2","quality":"auto","size":"auto"}`
	if len(asked) != 1 || asked[0] != wantBody {
		t.Errorf("Images API requests %q, want one %s", asked, wantBody)
	}
}
