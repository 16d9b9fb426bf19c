package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestFilesBack: a real command writes the files the answer links to; after
// the answer's markdown the picture arrives as an image message and the PDF
// as a file message, each uploaded to the qyapi fake byte for byte; what is
// outside the workspace or too large is never uploaded, and the answer says
// why.
func TestFilesBack(t *testing.T) {
	h := codextest.Start(t, codextest.FilesScript())
	r := newRig(t)
	n := r.replica(t, h, false)
	sendText(t, n.cb, testUser, "make the chart and the report")
	last, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "file" && rec.API == "message/send" })
	if err != nil {
		t.Fatal(err)
	}
	sent := r.api.Delivered(testUser, "")
	var kinds []string
	for _, s := range sent {
		kinds = append(kinds, s.MsgType)
	}
	if strings.Join(kinds, ",") != "template_card,markdown,image,file" || sent[3].Seq != last.Seq {
		t.Fatalf("delivered %v, want the card, the answer, the picture, the PDF", kinds)
	}
	want := codextest.FilesAnswer + "\n\n📎 **Files**\n- `out/chart.png` — sent as a picture after the answer\n" +
		"- `report.pdf` — sent as a file message after the answer\n" + codextest.FilesRefusals
	if sent[1].Content != want {
		t.Fatalf("answer\n%s\nwant\n%s", sent[1].Content, want)
	}
	for _, c := range []struct {
		rec  wecomtest.AppRecord
		name string
		data []byte
	}{{sent[2], "chart.png", codextest.FilesChart}, {sent[3], "report.pdf", codextest.FilesReport}} {
		m, ok := r.api.Uploaded(c.rec.Content)
		if !ok || m.Name != c.name || m.ContentType != c.rec.MsgType || !bytes.Equal(m.Data, c.data) {
			t.Errorf("%s message names %s: %q %q of %d bytes (found %v), want %s of %d bytes", c.rec.MsgType, c.rec.Content, m.Name, m.ContentType, len(m.Data), ok, c.name, len(c.data))
		}
	}
	uploads := 0
	for _, rec := range r.api.Records() {
		if rec.API == "media/upload" {
			uploads++
		}
		if rec.Errcode != 0 || rec.Dropped {
			t.Errorf("record %+v failed or dropped", rec)
		}
	}
	if uploads != 2 {
		t.Fatalf("uploads = %d, want 2 (the picture and the PDF only)", uploads)
	}

	// /file sends the PDF again, after which it says so.
	sendText(t, n.cb, testUser, "/file report.pdf")
	if _, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.Content == "📎 Sent `report.pdf`." }); err != nil {
		t.Fatal(err)
	}
	sent = r.api.Delivered(testUser, "")
	again := sent[len(sent)-2]
	if m, ok := r.api.Uploaded(again.Content); again.MsgType != "file" || !ok || !bytes.Equal(m.Data, codextest.FilesReport) {
		t.Fatalf("before /file's answer came %s %s, want the PDF again", again.MsgType, again.Content)
	}
}

// TestFileUploadFailedSaysSo: WeCom refuses the upload of a file (the app's
// temporary media takes no file of 5 bytes or less); the answer is sent
// whole, its Files list says the upload failed, and no file message
// follows.
func TestFileUploadFailedSaysSo(t *testing.T) {
	const answer = "Done: [the note](note.txt)."
	h := codextest.Start(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.ExecCommand("call-note", "printf 'ok' > note.txt")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", answer)),
	))
	r := newRig(t)
	n := r.replica(t, h, false)
	sendText(t, n.cb, testUser, "write the note")
	md, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.api.Wait(waitCtx(t), isUpdate); err != nil {
		t.Fatal(err)
	}
	if want := answer + "\n\n📎 **Files**\n- `note.txt` — not sent: the upload to WeCom failed"; md.Content != want {
		t.Fatalf("answer\n%s\nwant\n%s", md.Content, want)
	}
	var uploads []int
	for _, rec := range r.api.Records() {
		if rec.API == "media/upload" {
			uploads = append(uploads, rec.Errcode)
		}
	}
	if len(uploads) != 1 || uploads[0] != wecomtest.ErrcodeFileSize {
		t.Fatalf("media/upload answered %v, want one refusal %d", uploads, wecomtest.ErrcodeFileSize)
	}
	var kinds []string
	for _, s := range r.api.Delivered(testUser, "") {
		kinds = append(kinds, s.MsgType)
	}
	if strings.Join(kinds, ",") != "template_card,markdown" {
		t.Fatalf("delivered %v, want the card and the answer only", kinds)
	}
}
