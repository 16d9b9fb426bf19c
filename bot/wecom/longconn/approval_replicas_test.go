package longconn

import (
	"strings"
	"testing"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestApprovalCardTurnOnOtherReplica: A holds the connection and runs no
// turns (its Codex could not start); B runs the turn, and Codex asks. The
// button card reaches the chat through Redis and A's connection, once; A
// answers the clicks: someone else's is refused and runs nothing, the
// requester's decides on B, where the command runs, and the same click
// again runs nothing twice.
func TestApprovalCardTurnOnOtherReplica(t *testing.T) {
	h := startEscalation(t)
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(t, "longconn-approval-relay")
	users := []string{"zhangsan", "lisi"}
	a := startNode(t, h, srv, nodeOptions{prefix: prefix, replica: "A", bin: "/nonexistent/codex", users: users, approve: true})
	waitHolding(t, a.conn)
	b := startNode(t, h, srv, nodeOptions{prefix: prefix, replica: "B", bin: h.Bin, run: true, users: users, approve: true})
	ctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	send := waitApprovalCard(t, ctx, srv, "g1")
	marks := func() int { return runs(b.root, "group:g1") }
	if got, want := clickCard(t, ctx, srv, "g1", "lisi", "appr:1:approve", send.Card.TaskID).String(),
		"[lisi] Not yours to decide | Only zhangsan (who asked) or an admin may decide #1. | OK=appr:1:done | "+send.Card.TaskID; got != want {
		t.Fatalf("lisi's click answered %q, want %q", got, want)
	}
	if n := marks(); n != 0 {
		t.Fatalf("the command ran %d times after lisi's refused click", n)
	}
	approved := clickCard(t, ctx, srv, "g1", "zhangsan", "appr:1:approve", send.Card.TaskID)
	if approved.Card.Title.Title != "Approved by zhangsan" || !strings.HasPrefix(approved.Card.Sub, "OK — #1 approved by zhangsan: ") {
		t.Fatalf("zhangsan's click answered %q, want the approval", approved.String())
	}
	final, err := srv.Wait(ctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if c := final.Stream().Content; !strings.HasSuffix(c, "</think>\n\nAll done.") || !strings.Contains(c, "#1 approved by zhangsan: ") {
		t.Fatalf("final frame %q: want the decision in the progress and the answer", c)
	}
	if got, want := clickCard(t, ctx, srv, "g1", "zhangsan", "appr:1:approve", send.Card.TaskID).String(),
		"[] Approved by zhangsan | #1 was already decided: approved by zhangsan. | Approved by zhangsan=appr:1:done | "+send.Card.TaskID; got != want {
		t.Fatalf("the repeated click answered %q, want %q", got, want)
	}
	if n := marks(); n != 1 {
		t.Fatalf("the command ran %d times, want once", n)
	}
	// Once: the card is the one aibot_send_msg (the answer fit its stream),
	// on A's connection.
	sends := srv.Requests(CmdSend)
	if len(sends) != 1 || sends[0].Conn != srv.Subscribed() {
		t.Fatalf("aibot_send_msg requests = %d (first on conn %d, A's is %d), want the card once on A's", len(sends), sends[0].Conn, srv.Subscribed())
	}
	if n := len(srv.Requests(CmdSubscribe)); n != 1 {
		t.Fatalf("subscribes = %d, want A's only", n)
	}
}
