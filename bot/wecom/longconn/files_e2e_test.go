package longconn

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestEngineFilesBackOverLongConnection: a real command writes the files
// the answer links to; the picture arrives in the final frame's msg_item
// and the PDF through the upload commands and a file message, byte for byte
// as the fake put them together; a link out of the workspace, a symlink out
// and an oversized file are never sent, and the card says why.
func TestEngineFilesBackOverLongConnection(t *testing.T) {
	h := codextest.Start(t, codextest.FilesScript())
	srv, _ := startEngine(t, h)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "files-1", UserID: "zhangsan", Text: "make the chart and the report"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	imgs := final.StreamImages()
	if final.Errcode != 0 || len(imgs) != 1 || !bytes.Equal(imgs[0], codextest.FilesChart) {
		t.Fatalf("final frame (errcode %d) has %d pictures, want exactly out/chart.png", final.Errcode, len(imgs))
	}
	wantCard := "📎 **Files**\n- `out/chart.png` — shown with the answer\n- `report.pdf` — sent as a file message\n" + codextest.FilesRefusals
	if c := final.Stream().Content; !strings.Contains(c, codextest.FilesAnswer+"\n\n"+wantCard) {
		t.Fatalf("final frame %q\nwant the answer, then\n%s", c, wantCard)
	}
	sent, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == CmdSend && r.MsgType() == "file"
	})
	if err != nil {
		t.Fatal(err)
	}
	up, ok := srv.Uploaded(sent.MediaID())
	if sent.Errcode != 0 || !ok || up.Type != "file" || up.Filename != "report.pdf" || !bytes.Equal(up.Data, codextest.FilesReport) {
		t.Fatalf("file message errcode %d names %s: %q %q of %d bytes, want report.pdf of %d bytes", sent.Errcode, sent.MediaID(), up.Type, up.Filename, len(up.Data), len(codextest.FilesReport))
	}
	if n := len(srv.Requests(CmdUploadChunk)); n != 3 {
		t.Fatalf("upload chunks = %d, want 3 (1.2 MB in 512 KiB chunks)", n)
	}
	if ups := srv.Uploads(); len(ups) != 1 {
		t.Fatalf("uploads = %d, want only the PDF", len(ups))
	}

	// /file sends a file of the workspace again, within the same rules.
	for _, c := range []struct{ text, reply string }{
		{"/file report.pdf", "📎 Sent `report.pdf`."},
		{"/file ../other/secret", "📎 `../other/secret` not sent: it is outside the conversation's workspace."},
		{"/file out/link", "📎 `out/link` not sent: it is outside the conversation's workspace."},
	} {
		id, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "file-" + c.text, UserID: "zhangsan", Text: c.text})
		if err != nil {
			t.Fatal(err)
		}
		r, err := srv.Wait(ctx, wecomtest.IsFinalStream(id))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Stream().Content; got != c.reply {
			t.Fatalf("%s answered %q, want %q", c.text, got, c.reply)
		}
	}
	ups := srv.Uploads()
	if len(ups) != 2 || ups[1].Filename != "report.pdf" || !bytes.Equal(ups[1].Data, codextest.FilesReport) {
		t.Fatalf("uploads after /file = %d, want the PDF twice, byte for byte", len(ups))
	}
}

// TestEngineFileUploadFailedSaysSo: WeCom answers the upload with a system
// error; the answer and its picture still arrive in the final frame, the
// card says the PDF's upload failed, and no file message is sent.
func TestEngineFileUploadFailedSaysSo(t *testing.T) {
	h := codextest.Start(t, codextest.FilesScript())
	srv, _ := startEngine(t, h)
	srv.FailCmd(CmdUploadInit, wecomtest.CodeSystemError)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{MsgID: "files-fail", UserID: "zhangsan", Text: "make the chart and the report"})
	if err != nil {
		t.Fatal(err)
	}
	final, err := srv.Wait(waitCtx(t), wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if imgs := final.StreamImages(); final.Errcode != 0 || len(imgs) != 1 || !bytes.Equal(imgs[0], codextest.FilesChart) {
		t.Fatalf("final frame (errcode %d) has %d pictures, want exactly out/chart.png", final.Errcode, len(imgs))
	}
	wantCard := "📎 **Files**\n- `out/chart.png` — shown with the answer\n- `report.pdf` — not sent: the upload to WeCom failed\n" + codextest.FilesRefusals
	if c := final.Stream().Content; !strings.Contains(c, codextest.FilesAnswer+"\n\n"+wantCard) {
		t.Fatalf("final frame %q\nwant the answer, then\n%s", c, wantCard)
	}
	inits := srv.Requests(CmdUploadInit)
	if len(inits) != 1 || inits[0].Errcode != wecomtest.CodeSystemError {
		t.Fatalf("upload inits = %+v, want one, refused", inits)
	}
	for _, r := range srv.Requests(CmdSend) {
		if r.MsgType() == "file" {
			t.Fatalf("a file message was sent: %+v", r)
		}
	}
}
