package longconn

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"

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
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "plot-1", UserID: "zhangsan", Text: "draw the plot"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(waitCtx(t), wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	imgs := final.StreamImages()
	if final.Errcode != 0 || len(imgs) != 1 || !bytes.Equal(imgs[0], plot) {
		t.Fatalf("final frame (errcode %d) has %d pictures, want exactly out/plot.png", final.Errcode, len(imgs))
	}
	want := "The plot is ready.\n\n📎 **Files**\n- `out/plot.png` — shown with the answer"
	if c := final.Stream().Content; !strings.Contains(c, want) || strings.Count(c, "out/plot.png`") != 1 {
		t.Fatalf("final frame %q\nwant the answer, then\n%s", c, want)
	}
}
