package app

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// WeCom expires the token while a turn runs: the card update is refused
// (42001), the token dropped and fetched again once, the update and the
// answer then go through; nothing is lost or sent twice, and no log line
// carries a token.
func TestExpiredTokenMidTurn(t *testing.T) {
	gate := scriptedmodel.NewGate()
	t.Cleanup(gate.Release)
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(
		scriptedmodel.MessageDeltas("final_answer", "Still ", "here.")).WithHold(1, gate)))
	r := newRig(t)
	n := r.replica(t, h, false)
	ctx := waitCtx(t)
	sendText(t, n.cb, testUser, "go")
	if _, err := r.api.Wait(ctx, func(rec wecomtest.AppRecord) bool { return rec.MsgType == "template_card" }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gate.Reached():
	case <-ctx.Done():
		t.Fatal("Codex never reached the hold")
	}
	r.api.ExpireTokens()
	gate.Release()
	if _, err := r.api.Wait(ctx, func(rec wecomtest.AppRecord) bool { return rec.MsgType == "markdown" }); err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, rec := range r.api.Records() {
		calls = append(calls, rec.API+"/"+strconv.Itoa(rec.Errcode))
	}
	want := "gettoken/0 message/send/0 message/update_template_card/42001 gettoken/0 message/update_template_card/0 message/send/0"
	if got := strings.Join(calls, " "); got != want {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, want)
	}
	if md := r.api.Delivered(testUser, "markdown"); len(md) != 1 || md[0].Content != "Still here." {
		t.Fatalf("answers %q", contents(md))
	}
	assertNoTokenLogged(t, r)
}

// Two replicas find the cache empty at once: one fetches, the other waits
// for that token (it is seen waiting before the fetch is let through), and
// both send with it.
func TestTwoReplicasShareOneTokenFetch(t *testing.T) {
	r := newRig(t)
	a, _ := r.channel(t, "A")
	b, _ := r.channel(t, "B")
	holding, release := r.api.HoldTokens()
	t.Cleanup(release)
	ctx := waitCtx(t)
	show := func(c *Channel, stream string, wg *sync.WaitGroup) {
		defer wg.Done()
		_, err := c.Show(ctx, bot.Reply{Conversation: wecom.AppChat(testUser), User: testUser,
			To: bot.ReplyTo{Stream: stream}, State: bot.ReplyFinished, Text: "from " + stream})
		if err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go show(a, "sA", &wg)
	select {
	case <-holding:
	case <-ctx.Done():
		t.Fatal("A never fetched a token")
	}
	waiting := make(chan struct{})
	var once sync.Once
	b.OnTokenWait(func() { once.Do(func() { close(waiting) }) })
	go show(b, "sB", &wg)
	select {
	case <-waiting:
	case <-ctx.Done():
		t.Fatal("B never waited for A's token")
	}
	release()
	wg.Wait()
	sent := r.api.Delivered(testUser, "markdown")
	if r.api.Fetches() != 1 || len(sent) != 2 || sent[0].Token != sent[1].Token {
		t.Fatalf("fetches %d, sends %+v: want one token for both", r.api.Fetches(), sent)
	}
}

func assertNoTokenLogged(t *testing.T, r *rig) {
	t.Helper()
	logs := r.logs.String()
	for _, rec := range r.api.Records() {
		if rec.Token != "" && strings.Contains(logs, rec.Token) {
			t.Fatalf("a log line carries the access token %s", rec.Token)
		}
	}
	if strings.Contains(logs, testSecret) {
		t.Fatal("a log line carries the secret")
	}
}
