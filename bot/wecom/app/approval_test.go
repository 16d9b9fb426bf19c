package app

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// passiveCard is the update_template_card passive reply as the tests read it.
type passiveCard struct {
	ToUserName   string `xml:"ToUserName"`
	FromUserName string `xml:"FromUserName"`
	MsgType      string `xml:"MsgType"`
	Card         struct {
		CardType string `xml:"CardType"`
		Title    string `xml:"MainTitle>Title"`
		Sub      string `xml:"SubTitleText"`
		TaskID   string `xml:"TaskId"`
		Buttons  []struct {
			Text  string `xml:"Text"`
			Style int    `xml:"Style"`
			Key   string `xml:"Key"`
		} `xml:"ButtonList"`
	} `xml:"TemplateCard"`
}

// An approval by button: the real Codex asks before a command that must
// leave the sandbox; the approval card comes with three buttons; someone
// else's click (from their own chat) decides nothing; the requester's click is
// answered with the replacing card and the command runs; the same click
// again decides nothing and runs nothing twice.
func TestApprovalByButton(t *testing.T) {
	h := codextest.StartWith(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.EscalatedExecCommand("call_1", "echo ran >> approved.txt", "writes outside the sandbox")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "All done.")),
	), scriptedmodel.HomeOptions{ApprovalPolicy: "on-request"})
	r := newRig(t)
	n := r.replica(t, h, true)
	ctx := waitCtx(t)
	sendText(t, n.cb, testUser, "write the file")
	sent, err := r.api.Wait(ctx, func(rec wecomtest.AppRecord) bool {
		return rec.MsgType == "template_card" && strings.HasPrefix(cardOf(t, rec.Card).TaskID, "wxappr_")
	})
	if err != nil {
		t.Fatal(err)
	}
	ask := cardOf(t, sent.Card)
	if ask.CardType != "button_interaction" || ask.MainTitle.Title != "Codex asks #1" ||
		ask.buttons() != "Approve=appr:1:approve Always=appr:1:always Deny=appr:1:deny" {
		t.Fatalf("approval card %+v", ask)
	}
	marks := func() int {
		b, _ := os.ReadFile(filepath.Join(bot.WorkspaceDir(n.root, "app:"+testUser), "approved.txt"))
		return strings.Count(string(b), "ran\n")
	}
	click := func(user, key string) passiveCard {
		t.Helper()
		rep, err := n.cb.Send(ctx, wecomtest.AppCardClick(user, key, ask.TaskID, "RC-click"))
		if err != nil || rep.Status != 200 {
			t.Fatalf("click: status %d err %v", rep.Status, err)
		}
		var p passiveCard
		if err := xml.Unmarshal(rep.Plain, &p); err != nil {
			t.Fatalf("passive reply %q: %v", rep.Plain, err)
		}
		if p.MsgType != "update_template_card" || p.ToUserName != user || p.FromUserName != testCorp || p.Card.TaskID != ask.TaskID ||
			len(p.Card.Buttons) != 1 || p.Card.Buttons[0].Key != "appr:1:done" || p.Card.Buttons[0].Style != 4 {
			t.Fatalf("passive reply %+v", p)
		}
		return p
	}
	// Only the requester sees the card (apps are 1:1, and no approver is
	// named); a click from another user's chat names the request by its id,
	// which that user may not decide.
	if p := click(otherUser, "appr:1:approve"); p.Card.Title != "Not yours to decide" || p.Card.Sub != "Only zhangsan (who asked) or an admin may decide #1." {
		t.Fatalf("another user's click: %+v", p.Card)
	}
	if p := click(testUser, "appr:1:approve"); p.Card.Title != "Approved by zhangsan" || !strings.HasPrefix(p.Card.Sub, "OK — #1 ") {
		t.Fatalf("the requester's click: %+v", p.Card)
	}
	if _, err := r.api.Wait(ctx, func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" }); err != nil {
		t.Fatal(err)
	}
	if p := click(testUser, "appr:1:approve"); p.Card.Title != "Approved by zhangsan" || !strings.HasPrefix(p.Card.Sub, "#1 was already decided: ") {
		t.Fatalf("the repeated click: %+v, want already decided", p.Card)
	}
	if m := marks(); m != 1 {
		t.Fatalf("the command ran %d times, want 1", m)
	}
	if md := r.api.Delivered(testUser, "markdown"); len(md) != 1 || md[0].Content != "All done." {
		t.Fatalf("answers %q", contents(md))
	}
	if upd, err := r.api.Wait(ctx, isUpdate); err != nil || cardOf(t, upd.Card).buttons() == "" {
		t.Fatalf("progress card update %+v %v", upd, err)
	}
}
