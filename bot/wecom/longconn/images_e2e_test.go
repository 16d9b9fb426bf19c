package longconn

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestEngineSendsBackAnImageCodexProduced: a real command draws a PNG and
// the agent looks at it (Codex's imageView item); the answer names it
// nowhere, yet the picture arrives in the final frame's msg_item byte for
// byte, as a linked one does, and the card lists it once.
func TestEngineSendsBackAnImageCodexProduced(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	plot := buf.Bytes()
	draw := "mkdir -p out && printf '%s' " + base64.StdEncoding.EncodeToString(plot) + " | base64 -d > out/plot.png"
	h := codextest.Start(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.ExecCommand("call-draw", draw)),
		scriptedmodel.Reply(scriptedmodel.FunctionCall("call-view", "view_image", `{"path":"out/plot.png"}`)),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "The plot is ready.")),
	))
	srv, _ := startEngine(t, h)
	wantOnePicture(t, srv, "draw the plot", plot, "The plot is ready.", func() string { return "out/plot.png" })
}

// wantOnePicture sends text and waits for its final frame: it must carry
// exactly pic in msg_item, and its content the answer, then a Files list
// naming the picture once (as named reads it after the turn), as shown with
// the answer.
func wantOnePicture(t *testing.T, srv *wecomtest.LongConnServer, text string, pic []byte, answer string, named func() string) {
	t.Helper()
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "pic-" + text, UserID: "zhangsan", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(waitCtx(t), wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	name := named()
	imgs := final.StreamImages()
	if final.Errcode != 0 || len(imgs) != 1 || !bytes.Equal(imgs[0], pic) {
		t.Fatalf("final frame (errcode %d) has %d pictures, want exactly %s; content %q", final.Errcode, len(imgs), name, final.Stream().Content)
	}
	want := answer + "\n\n📎 **Files**\n- `" + name + "` — shown with the answer"
	if c := final.Stream().Content; !strings.Contains(c, want) || strings.Count(c, name+"`") != 1 {
		t.Fatalf("final frame %q\nwant the answer, then\n%s", c, want)
	}
}

// TestEngineSendsBackAPictureCodexGenerated: the model calls Codex's image
// tool; the real Codex saves the Images API's picture under
// CODEX_HOME/generated_images, outside the workspace, and reports it (its
// imageGeneration item). The answer names it nowhere, yet it arrives in the
// final frame's msg_item byte for byte, and the card lists it once, by its
// path under generated_images.
func TestEngineSendsBackAPictureCodexGenerated(t *testing.T) {
	pic := codextest.Picture(t, 42)
	h := codextest.Start(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.NamespacedFunctionCall("call_ig", "image_gen", "imagegen", `{"prompt":"a small test card","transparent_background":false}`)),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "The card is drawn.")),
	))
	h.EnableImageGeneration(t)
	h.Server.GenerateImages(scriptedmodel.GeneratedImage{PNG: pic, RevisedPrompt: "a small test card"})
	dir := filepath.Join(h.Home, "generated_images")
	srv, _ := startEngineWith(t, h, func(c *bot.Config) { c.GeneratedImages = dir })
	// Codex names the file <thread>/<call>.png; the thread is known only
	// once the turn ran, so the expected name is read back after it.
	named := func() string {
		saved, err := filepath.Glob(filepath.Join(dir, "*", "call_ig.png"))
		if err != nil || len(saved) != 1 {
			t.Fatalf("saved pictures %q (%v), want one call_ig.png", saved, err)
		}
		rel, _ := filepath.Rel(dir, saved[0])
		return "generated_images/" + filepath.ToSlash(rel)
	}
	wantOnePicture(t, srv, "draw a card", pic, "The card is drawn.", named)
}
