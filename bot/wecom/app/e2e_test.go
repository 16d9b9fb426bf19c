package app

import (
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A full turn with the real Codex: the progress card (a stop button) first,
// then the answer as one markdown message, and the card updated once, with
// the code its send returned, to a grey "Done" button. The commentary stays
// on the card, never in the answer. A repeated delivery runs nothing again.
func TestFullTurn(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.Message("commentary", "Reading the code."),
		scriptedmodel.MessageDeltas("final_answer", "The answer ", "is **42**."),
	)))
	r := newRig(t)
	n := r.replica(t, h, false)
	// WeCom delivers it twice (its retry of a slow answer): one turn.
	msg := wecomtest.AppText(testUser, "what is it?")
	msg.MsgID = 7300000000000000099
	for range 2 {
		if rep, err := n.cb.Send(waitCtx(t), msg); err != nil || rep.Status != 200 {
			t.Fatalf("callback: %d %v", rep.Status, err)
		}
	}
	upd, err := r.api.Wait(waitCtx(t), isUpdate)
	if err != nil {
		t.Fatal(err)
	}
	md, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" })
	if err != nil {
		t.Fatal(err)
	}
	sent := r.api.Delivered(testUser, "")
	if len(sent) != 2 || sent[0].MsgType != "template_card" || sent[1].Seq != md.Seq {
		t.Fatalf("delivered %+v, want the progress card, then the answer", sent)
	}
	progress := cardOf(t, sent[0].Card)
	if progress.CardType != "button_interaction" || progress.MainTitle.Title != "what is it?" || len(progress.Buttons) != 1 ||
		progress.Buttons[0].Text != "Stop" || !strings.HasPrefix(progress.Buttons[0].Key, "stop:") {
		t.Fatalf("progress card %+v", progress)
	}
	if md.Content != "The answer is **42**." {
		t.Fatalf("answer %q", md.Content)
	}
	done := cardOf(t, upd.Card)
	if upd.ResponseCode != sent[0].ResponseCode || upd.ToUser != testUser || done.buttons() != "Done=done:"+strings.TrimPrefix(progress.Buttons[0].Key, "stop:") ||
		done.MainTitle.Desc != "Done" || done.TaskID != progress.TaskID {
		t.Fatalf("update %+v card %+v, want the progress card's code, Done", upd, done)
	}
	var updates int
	for _, rec := range r.api.Records() {
		if rec.API == "message/update_template_card" {
			updates++
		}
		if rec.Errcode != 0 || rec.Dropped {
			t.Errorf("record %+v failed or dropped", rec)
		}
	}
	if updates != 1 {
		t.Fatalf("card updates = %d, want 1", updates)
	}
	if n := len(h.Server.ModelRequests()); n != 1 {
		t.Fatalf("model requests = %d, want 1 for the message delivered twice", n)
	}
}

// A user not on the access list gets the refusal as a message, and
// nothing runs.
func TestRefusedUser(t *testing.T) {
	h := codextest.Start(t, scriptedmodel.Sequence())
	r := newRig(t)
	n := r.replica(t, h, false)
	sendText(t, n.cb, "wangwu", "hello")
	md, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" })
	if err != nil {
		t.Fatal(err)
	}
	if md.ToUser != "wangwu" || md.Content != textRefused {
		t.Fatalf("refusal %+v", md)
	}
	if n := len(h.Server.ModelRequests()); n != 0 {
		t.Fatalf("model requests = %d, want 0", n)
	}
}
