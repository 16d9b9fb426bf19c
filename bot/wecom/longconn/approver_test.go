package longconn

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// With the default approvers (the admins), the ask card with buttons goes
// to the group and to the admin's own 1:1 chat. The requester's /approve and
// click decide nothing, a stranger's click is refused, /pending in the
// admin's chat lists the request, and the admin's click there runs the
// command once, in the requester's workspace, and the requester's card
// finishes.
func TestApprovalCardReachesTheApprover(t *testing.T) {
	h := startEscalation(t)
	srv, root := startApprovalEngineWith(t, h, bot.Access{AllowUsers: []string{"zhangsan", "lisi"}, Admins: []string{"wangwu"}})
	wctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	group := waitCardTo(t, wctx, srv, "g1")
	own := waitCardTo(t, wctx, srv, "wangwu")
	if own.Card.Title.Title != "Codex asks #1" || own.Card.Sub != group.Card.Sub || own.Card.TaskID == group.Card.TaskID {
		t.Fatalf("the approver's card %+v; want the group's request (%q) under its own task id", own, group.Card.Sub)
	}
	marks := func() int { return runs(root, "group:g1") }

	if got, want := reply(t, wctx, srv, wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "/approve"}), "Only an admin may decide #1."; got != want {
		t.Fatalf("the requester's /approve: %q, want %q", got, want)
	}
	for _, user := range []string{"zhangsan", "lisi"} {
		got := clickCard(t, wctx, srv, "g1", user, "appr:1:approve", group.Card.TaskID).String()
		if want := "[" + user + "] Not yours to decide | Only an admin may decide #1. | OK=appr:1:done | " + group.Card.TaskID; got != want {
			t.Fatalf("%s's click answered %q, want %q", user, got, want)
		}
	}
	if n := marks(); n != 0 {
		t.Fatalf("the command ran %d times before the approver decided", n)
	}
	what := cutRunes("`/bin/bash -c 'echo ran >> approved.txt'` in "+bot.WorkspaceDir(root, "group:g1"), 100)
	if got, want := reply(t, wctx, srv, wecomtest.LongConnMessage{UserID: "wangwu", Text: "/pending"}),
		"Waiting for your decision:\n#1 from zhangsan in group:g1: "+what+" — /approve 1 or /deny 1"; got != want {
		t.Fatalf("the approver's /pending:\n%q\nwant\n%q", got, want)
	}
	approved := clickCard(t, wctx, srv, "", "wangwu", "appr:1:approve", own.Card.TaskID)
	if got, want := approved.String(), "[] Approved by wangwu | "+wecom.CutRunes("OK — #1 approved by wangwu: "+what, 112)+" | Approved by wangwu=appr:1:done | "+own.Card.TaskID; got != want {
		t.Fatalf("the approver's click answered %q, want %q", got, want)
	}
	final, err := srv.Wait(wctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if c, want := final.Stream().Content, "ℹ️ #1 approved by wangwu: "+what+"\n</think>\n\nAll done."; len(c) < len(want) || c[len(c)-len(want):] != want {
		t.Fatalf("the requester's final frame %q: want it to end with %q", c, want)
	}
	if n := marks(); n != 1 {
		t.Fatalf("the command ran %d times in the requester's workspace, want once", n)
	}
}

// waitCardTo waits for the approval card sent to chat.
func waitCardTo(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, chat string) approvalCard {
	t.Helper()
	var send approvalCard
	_, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		if r.Kind != wecomtest.KindRequest || r.Cmd != CmdSend || json.Unmarshal(r.Body, &send) != nil {
			return false
		}
		return send.ChatID == chat && send.Card.CardType == "button_interaction"
	})
	if err != nil {
		t.Fatalf("no approval card sent to %s: %v", chat, err)
	}
	return send
}

// reply pushes m and returns the text of the reply that finishes its stream.
func reply(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, m wecomtest.LongConnMessage) string {
	t.Helper()
	id, err := srv.PushMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := srv.Wait(ctx, wecomtest.IsFinalStream(id))
	if err != nil {
		t.Fatalf("%s from %s: %v", m.Text, m.UserID, err)
	}
	return r.Stream().Content
}

// cutRunes is what the card's status keeps of a long text: n runes, … last.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
