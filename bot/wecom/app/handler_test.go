package app

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// WeCom's URL check: the decrypted echostr is the whole answer; a check
// signed with another token is refused.
func TestURLVerification(t *testing.T) {
	r := newRig(t)
	n := r.replica(t, codextest.Start(t, scriptedmodel.Sequence()), false)
	status, body, err := n.cb.VerifyURL(waitCtx(t), "3735928559123456")
	if err != nil || status != 200 || body != "3735928559123456" {
		t.Fatalf("URL check: %d %q %v", status, body, err)
	}
	forged, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{URL: urlOf(n), CorpID: testCorp, AgentID: testAgent, Token: "notOurToken", EncodingAESKey: testAESKey})
	if err != nil {
		t.Fatal(err)
	}
	if status, _, err := forged.VerifyURL(waitCtx(t), "123"); err != nil || status != http.StatusUnauthorized {
		t.Fatalf("forged URL check: %d %v, want 401", status, err)
	}
}

// A callback signed with another token is refused before decryption, and
// nothing of it reaches intake or WeCom.
func TestForgedSignatureRejected(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence())
	r := newRig(t)
	n := r.replica(t, h, false)
	forged, err := wecomtest.NewAppCallbacks(wecomtest.AppConfig{URL: urlOf(n), CorpID: testCorp, AgentID: testAgent, Token: "notOurToken", EncodingAESKey: testAESKey})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := forged.Send(waitCtx(t), wecomtest.AppText(testUser, "/new"))
	if err != nil || rep.Status != http.StatusUnauthorized {
		t.Fatalf("forged callback: %d %v, want 401", rep.Status, err)
	}
	// The same callback with a signature that matches another body.
	_, q, _ := n.cb.Seal([]byte("<xml/>"))
	other, _, _ := n.cb.Seal([]byte("<xml><a/></xml>"))
	if rep, err := n.cb.PostRaw(waitCtx(t), q, other); err != nil || rep.Status != http.StatusUnauthorized {
		t.Fatalf("swapped body: %d %v, want 401", rep.Status, err)
	}
	if recs := r.api.Records(); len(recs) != 0 {
		t.Fatalf("WeCom was called: %+v", recs)
	}
	if !strings.Contains(r.logs.String(), "signature mismatch") {
		t.Fatal("no log line names the signature")
	}
}

// A 2 MiB body is refused with 413, with and without Content-Length.
func TestOversizedBody(t *testing.T) {
	r := newRig(t)
	n := r.replica(t, codextest.Start(t, scriptedmodel.Sequence()), false)
	_, q, _ := n.cb.Seal([]byte("<xml/>"))
	big := bytes.Repeat([]byte("A"), 2<<20)
	if rep, err := n.cb.PostRaw(waitCtx(t), q, big); err != nil || rep.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("2 MiB body: %d %v, want 413", rep.Status, err)
	}
	req, _ := http.NewRequest(http.MethodPost, urlOf(n)+"?"+q.Encode(), io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("2 MiB chunked body: %d, want 413", resp.StatusCode)
	}
}

// A message of a type the app does not handle (video) is answered 200, and
// nothing runs.
func TestUnsupportedMessage(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence())
	r := newRig(t)
	n := r.replica(t, h, false)
	video := wecomtest.AppMessage{}
	video.FromUserName.Text, video.MsgType.Text = testUser, "video"
	rep, err := n.cb.Send(waitCtx(t), video)
	if err != nil || rep.Status != 200 || rep.Plain != nil {
		t.Fatalf("video: %d %q %v", rep.Status, rep.Plain, err)
	}
	if recs := r.api.Records(); len(recs) != 0 || len(h.Server.ModelRequests()) != 0 {
		t.Fatalf("something ran: %+v", recs)
	}
}

// The progress card's stop button stops the running turn: the click is
// answered by greying the button out ("Stopping…"), the card ends "Stopped"
// and the user is told so; a second click of it stops nothing and greys
// nothing.
func TestStopButton(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.MessageDeltas("final_answer", "Partial ", "answer", " never finished.")).WithHold(1, gate)))
	r := newRig(t)
	n := r.replica(t, h, false)
	ctx := waitCtx(t)
	sendText(t, n.cb, testUser, "long job")
	sent, err := r.api.Wait(ctx, func(rec wecomtest.AppRecord) bool { return rec.MsgType == "template_card" })
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("Codex never reached the hold")
	}
	progress := cardOf(t, sent.Card)
	stop := progress.Buttons[0].Key
	rep, err := n.cb.Send(ctx, wecomtest.AppCardClick(testUser, stop, progress.TaskID, "RC-click"))
	if err != nil || rep.Status != 200 {
		t.Fatalf("stop click: %d %v", rep.Status, err)
	}
	var grey struct {
		To          string `xml:"ToUserName"`
		From        string `xml:"FromUserName"`
		MsgType     string `xml:"MsgType"`
		ReplaceName string `xml:"Button>ReplaceName"`
	}
	if err := xmlUnmarshal(rep.Plain, &grey); err != nil {
		t.Fatalf("stop click's passive reply %q: %v", rep.Plain, err)
	}
	if grey.To != testUser || grey.From != testCorp || grey.MsgType != "update_button" || grey.ReplaceName != "Stopping…" {
		t.Fatalf("stop click's passive reply %+v, want update_button %q to %s", grey, "Stopping…", testUser)
	}
	upd, err := r.api.Wait(ctx, isUpdate)
	if err != nil {
		t.Fatal(err)
	}
	if got := cardOf(t, upd.Card).buttons(); got != "Stopped=done:"+strings.TrimPrefix(stop, "stop:") {
		t.Fatalf("ended card buttons %q", got)
	}
	if _, err := r.api.Wait(ctx, func(rec wecomtest.AppRecord) bool { return strings.HasSuffix(rec.Content, "⏹ Cancelled") }); err != nil {
		t.Fatal(err)
	}
	md := contents(r.api.Delivered(testUser, "markdown"))
	if len(md) != 2 || md[0] != "OK — asked the running turn to stop." || !strings.HasSuffix(md[1], "⏹ Cancelled") {
		t.Fatalf("messages %q", md)
	}
	if rep, err := n.cb.Send(ctx, wecomtest.AppCardClick(testUser, stop, progress.TaskID, "RC-click2")); err != nil || rep.Status != 200 || rep.Plain != nil {
		t.Fatalf("second stop click: %d %q %v", rep.Status, rep.Plain, err)
	}
	if got := len(r.api.Delivered(testUser, "markdown")); got != 2 {
		t.Fatalf("a click on the ended card sent %d more messages", got-2)
	}
}

func urlOf(n *replica) string { return n.url }
