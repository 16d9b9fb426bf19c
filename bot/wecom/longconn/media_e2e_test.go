package longconn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestEnginePictureOverLongConnection: the whole stack with the real Codex
// (scripted model) on real Redis. A 1:1 image message whose file WeCom's
// media server serves encrypted with the message's own aeskey (sent without
// its padding) is fetched, decrypted, saved in the workspace and handed to
// Codex; the model's request holds exactly that picture's bytes, and the
// card streams back on the callback's req_id.
func TestEnginePictureOverLongConnection(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("final_answer", "A small grid of colours."),
	)))
	srv, _ := startEngine(t, h)
	media := wecomtest.NewMediaServer(nil)
	t.Cleanup(media.Close)
	pic := codextest.Picture(t, 21)
	l, err := media.Add(wecomtest.MediaFile{Data: pic})
	if err != nil {
		t.Fatal(err)
	}
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "img-1", UserID: "zhangsan", MsgType: "image", Link: l})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(waitCtx(t), wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if c := final.Stream().Content; !strings.Contains(c, "A small grid of colours.") {
		t.Fatalf("final frame %q: want the answer", c)
	}
	reqs := h.Server.ModelRequests()
	if len(reqs) != 1 {
		t.Fatalf("model requests = %d, want 1", len(reqs))
	}
	imgs := reqs[0].UserImages
	if len(imgs) != 1 || imgs[0].MIME != "image/png" || !bytes.Equal(imgs[0].Data, pic) {
		t.Fatalf("the model got %d pictures (%+v); want exactly the sent one", len(imgs), imgs)
	}
	if !strings.Contains(reqs[0].UserText, "img-1.png") {
		t.Fatalf("the prompt %q does not name the saved picture img-1.png", reqs[0].UserText)
	}
}
