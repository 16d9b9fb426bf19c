package main

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// kill -9 of the replica downloading a picture, after WeCom was answered
// "Fetching the attachments…": the other replica takes the recorded
// message over once the dead one's claim lapses (15 s), downloads the
// picture again and runs the turn with the real Codex. The card finishes
// with the answer; the model is asked once, with the picture.
func TestE2EMediaTakenOverAfterKill9(t *testing.T) {
	e := newE2E(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "A picture of one colour."))))
	media := wecomtest.NewMediaServer(nil)
	t.Cleanup(media.Close)
	key, err := wecom.DecodeAESKey(e2eAESKey)
	if err != nil {
		t.Fatal(err)
	}
	pic := codextest.Picture(t, 33)
	l, release, err := media.AddHeld(wecomtest.MediaFile{Key: key, Data: pic})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	a := e.serve(t, "5m30s")
	b := e.serve(t, "5m30s")
	ctx := within(t, 3*time.Minute)

	st, err := a.sim.Send(ctx, wecomtest.Message{MsgID: "kill-pic", From: "alice", MsgType: "mixed",
		Items: []wecomtest.Item{{Text: "what is this?"}, {ImageURL: l.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	if st.First.Content != "Fetching the attachments…" || st.First.Finish {
		t.Fatalf("the message was answered %+v, want fetching", st.First)
	}
	for media.Gets(l) != 1 {
		select {
		case <-ctx.Done():
			t.Fatal("replica a never asked for the picture")
		case <-time.After(10 * time.Millisecond): // a poll interval
		}
	}
	killChildGroups(a.cmd.Process.Pid)
	a.signal(t, syscall.SIGKILL)
	a.waitExit(t, ctx)
	release()

	b.sim.Adopt(st) // WeCom refreshes the stream from b now, as alice
	final, seen := follow(t, ctx, b.sim, st.ID)
	if !final.Finish || final.Content != "A picture of one colour." {
		t.Fatalf("card after the take-over: %+v\nframes seen: %q\na:\n%s\nb:\n%s", final, seen, a.logs, b.logs)
	}
	for _, f := range seen {
		if strings.Contains(f, "lost") || strings.Contains(f, "no longer available") {
			t.Fatalf("a frame said %q; want the message taken over", f)
		}
	}
	reqs := e.h.Server.ModelRequests()
	if len(reqs) != 1 || len(reqs[0].UserImages) != 1 || !bytes.Equal(reqs[0].UserImages[0].Data, pic) {
		t.Fatalf("model requests %d; want one, with the picture", len(reqs))
	}
	if n := media.Gets(l); n != 2 {
		t.Fatalf("the picture was asked for %d times, want 2 (a's, then b's)", n)
	}
	b.logs.waitFor(t, ctx, "took over a message whose fetch stopped; fetching its attachments again", nil)
}
