package longconn

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge/codex"
	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
	"github.com/wecodex/wecodex/store"
)

// The approval card over the long connection: the real Codex asks before a
// command that must leave the sandbox; the card with buttons arrives in the
// group; a click by someone else is refused for them alone and runs
// nothing; the requester's click is answered on its req_id within WeCom's
// reply window (the simulator refuses a late one) and the command runs; the
// same click again decides nothing and runs nothing twice.
func TestApprovalCardClicks(t *testing.T) {
	h := startEscalation(t)
	srv, root := startApprovalEngine(t, h)
	wctx := waitCtx(t)
	reqID, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: "g1", Text: "write the file"})
	if err != nil {
		t.Fatal(err)
	}
	send := waitApprovalCard(t, wctx, srv, "g1")
	marks := func() int { return runs(root, "group:g1") }

	click := func(user, key string) update {
		t.Helper()
		return clickCard(t, wctx, srv, "g1", user, key, send.Card.TaskID)
	}
	if got, want := click("lisi", "appr:1:approve").String(), "[lisi] Not yours to decide | Only zhangsan (who asked) or an admin may decide #1. | OK=appr:1:done | "+send.Card.TaskID; got != want {
		t.Fatalf("lisi's click answered %q, want %q", got, want)
	}
	if n := marks(); n != 0 {
		t.Fatalf("the command ran %d times after lisi's refused click", n)
	}
	approved := click("zhangsan", "appr:1:approve")
	if got := approved.String(); len(approved.UserIDs) != 0 || approved.Card.Title.Title != "Approved by zhangsan" ||
		!strings.HasPrefix(approved.Card.Sub, "OK — #1 approved by zhangsan: `/bin/bash -c 'echo ran >> approved.txt'` in ") ||
		!strings.HasSuffix(got, " | Approved by zhangsan=appr:1:done | "+send.Card.TaskID) {
		t.Fatalf("zhangsan's click answered %q, want the card replaced for everyone with the approval", got)
	}
	final, err := srv.Wait(wctx, wecomtest.IsFinalStream(reqID))
	if err != nil {
		t.Fatal(err)
	}
	if c := final.Stream().Content; !strings.HasSuffix(c, "</think>\n\nAll done.") {
		t.Fatalf("final frame %q: want the answer", c)
	}
	if got, want := click("zhangsan", "appr:1:approve").String(), "[] Approved by zhangsan | #1 was already decided: approved by zhangsan. | Approved by zhangsan=appr:1:done | "+send.Card.TaskID; got != want {
		t.Fatalf("the repeated click answered %q, want %q", got, want)
	}
	if n := marks(); n != 1 {
		t.Fatalf("the command ran %d times, want once", n)
	}
}

// wireCard is a template_card as the bot sends it.
type wireCard struct {
	CardType string `json:"card_type"`
	Title    struct {
		Title string `json:"title"`
	} `json:"main_title"`
	Sub     string `json:"sub_title_text"`
	Buttons []struct {
		Text string `json:"text"`
		Key  string `json:"key"`
	} `json:"button_list"`
	TaskID string `json:"task_id"`
}

// approvalCard is an aibot_send_msg body with the approval card.
type approvalCard struct {
	ChatID string   `json:"chatid"`
	Card   wireCard `json:"template_card"`
}

// waitApprovalCard waits for the approval card of request #1 and checks it
// went to chat with its three buttons.
func waitApprovalCard(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, chat string) approvalCard {
	t.Helper()
	sent, err := srv.Wait(ctx, wecomtest.IsRequest(CmdSend))
	if err != nil {
		t.Fatal(err)
	}
	var send approvalCard
	if err := json.Unmarshal(sent.Body, &send); err != nil {
		t.Fatal(err)
	}
	var buttons []string
	for _, b := range send.Card.Buttons {
		buttons = append(buttons, b.Text+"="+b.Key)
	}
	if sent.Errcode != 0 || send.ChatID != chat || send.Card.CardType != "button_interaction" || send.Card.Title.Title != "Codex asks #1" ||
		strings.Join(buttons, " ") != "Approve=appr:1:approve Always=appr:1:always Deny=appr:1:deny" || !strings.HasPrefix(send.Card.TaskID, "wxappr_1_") {
		t.Fatalf("approval card: errcode %d %+v", sent.Errcode, send)
	}
	return send
}

// clickCard clicks a button of the approval card as user in chat and
// returns the aibot_respond_update_msg that answered the click's req_id.
func clickCard(t *testing.T, ctx context.Context, srv *wecomtest.LongConnServer, chat, user, key, taskID string) update {
	t.Helper()
	id, err := srv.PushEvent(wecomtest.LongConnEvent{UserID: user, ChatID: chat, EventType: "template_card_event",
		Payload: map[string]any{"card_type": "button_interaction", "event_key": key, "task_id": taskID}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := srv.Wait(ctx, func(r wecomtest.Record) bool {
		return r.Kind == wecomtest.KindRequest && r.Cmd == CmdUpdate && r.ReqID == id
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errcode != 0 {
		t.Fatalf("update of %s's click: errcode %d %s", user, r.Errcode, r.Errmsg)
	}
	var u update
	if err := json.Unmarshal(r.Body, &u); err != nil {
		t.Fatal(err)
	}
	return u
}

// update is an aibot_respond_update_msg body.
type update struct {
	ResponseType string   `json:"response_type"`
	UserIDs      []string `json:"userids"`
	Card         wireCard `json:"template_card"`
}

// String is "[userids] title | sub title | button=key … | task_id".
func (u update) String() string {
	var b []string
	for _, x := range u.Card.Buttons {
		b = append(b, x.Text+"="+x.Key)
	}
	return "[" + strings.Join(u.UserIDs, ",") + "] " + u.Card.Title.Title + " | " + u.Card.Sub + " | " + strings.Join(b, " ") + " | " + u.Card.TaskID
}

// startEscalation runs Codex on a script that asks before a command that
// must leave the sandbox (it appends "ran" to approved.txt), then answers.
func startEscalation(t *testing.T) *codextest.Harness {
	t.Helper()
	return codextest.StartWith(t, scriptedmodel.Sequence(
		scriptedmodel.Reply(scriptedmodel.EscalatedExecCommand("call_1", "echo ran >> approved.txt", "writes outside the sandbox")),
		scriptedmodel.Reply(scriptedmodel.Message("final_answer", "All done.")),
	), scriptedmodel.HomeOptions{ApprovalPolicy: "on-request"})
}

// runs counts how often the escalated command ran in conv's workspace.
func runs(root, conv string) int {
	b, _ := os.ReadFile(filepath.Join(bot.WorkspaceDir(root, conv), "approved.txt"))
	return strings.Count(string(b), "ran\n")
}

// startApprovalEngine is startEngine with agent.approval: ask, Codex in its
// workspace-write sandbox, zhangsan and lisi allowed in any chat, and the
// requester deciding their own requests.
func startApprovalEngine(t *testing.T, h *codextest.Harness) (*wecomtest.LongConnServer, string) {
	t.Helper()
	// The requester decides their own requests (access.approvers: [requester]).
	return startApprovalEngineWith(t, h, bot.Access{AllowUsers: []string{"zhangsan", "lisi"}, Approvers: []string{bot.ApproverRequester}})
}

// startApprovalEngineWith is startApprovalEngine with access.
func startApprovalEngineWith(t *testing.T, h *codextest.Harness, access bot.Access) (*wecomtest.LongConnServer, string) {
	t.Helper()
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	st := testenv.OpenStores(t, testenv.Prefix(t, "longconn-approval"))
	log := slog.New(slog.DiscardHandler)
	var (
		engine *bot.Engine
		ch     *Channel
	)
	agent := codex.New(codex.Options{Bin: h.Bin, Env: h.CodexEnv(), Phases: st, Logger: log,
		Sandbox: "workspace-write", ApprovalPolicy: "on-request"})
	t.Cleanup(func() { _ = agent.Close() })
	conn, err := New(Config{
		Client: Options{URL: srv.URL(), BotID: testBot, Secret: testSecret,
			OnCallback: func(ctx context.Context, f Frame) { ch.Callbacks(engine)(ctx, f) }},
		Replica: "A", Store: st, HolderTTL: 3 * time.Second, RenewEvery: time.Second, Log: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	ch = NewChannel(conn, log)
	root := t.TempDir()
	engine, err = bot.New(bot.Config{
		LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL,
		Replica: "A", WorkspaceRoot: root, TurnTimeout: time.Minute, UpdateInterval: 10 * time.Millisecond,
		Access: access, Logger: log,
	}, testenv.EngineStore(st), agent, ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = engine.Run(ctx); done <- struct{}{} }()
	go func() { _ = conn.Run(ctx); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	waitHolding(t, conn)
	return srv, root
}
