package longconn

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// TestSendsOfOneChatArriveInOrder: the parts of a long answer are sends
// made one after another; they reach WeCom in that order, both those that
// waited for a holder and those relayed to one, while another chat's sends
// go beside them.
func TestSendsOfOneChatArriveInOrder(t *testing.T) {
	srv := wecomtest.NewLongConnServer(t, wecomtest.LongConnOptions{BotID: testBot, Secret: testSecret})
	prefix := testenv.Prefix(t, "longconn-send-order")
	ctx := waitCtx(t)
	gone := startReplica(t, srv, prefix, "gone")
	holderOf(t, srv, gone)
	for _, chat := range []string{"g1", "g2"} {
		if _, err := srv.PushMessage(wecomtest.LongConnMessage{UserID: "zhangsan", ChatID: chat, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	gone.stop()
	maker, err := New(Config{Client: Options{URL: srv.URL(), BotID: testBot, Secret: testSecret},
		Replica: "maker", Store: testenv.OpenStores(t, prefix)})
	if err != nil {
		t.Fatal(err)
	}
	const waiting, relayed = 20, 40
	send := func(chat string, i int) {
		if err := maker.Send(ctx, map[string]any{"chatid": chat, "msgtype": "markdown", "markdown": map[string]string{"content": fmt.Sprintf("%s part %02d", chat, i)}}); err != nil {
			t.Error(err)
		}
	}
	for i := range waiting {
		send("g1", i)
	}
	a := startReplica(t, srv, prefix, "A")
	holderOf(t, srv, a)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // another chat's sends, made at the same time
		defer wg.Done()
		for i := range relayed {
			send("g2", i)
		}
	}()
	for i := waiting; i < waiting+relayed; i++ {
		send("g1", i)
	}
	wg.Wait()
	if _, err := srv.WaitCount(ctx, waiting+2*relayed, wecomtest.IsRequest(CmdSend)); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range srv.Requests(CmdSend) {
		var chat string
		fmt.Sscanf(r.Markdown(), "%s", &chat)
		got[chat] = append(got[chat], r.Markdown())
	}
	for chat, n := range map[string]int{"g1": waiting + relayed, "g2": relayed} {
		var want []string
		for i := range n {
			want = append(want, fmt.Sprintf("%s part %02d", chat, i))
		}
		if !slices.Equal(got[chat], want) {
			t.Errorf("%s received %q, want %q", chat, got[chat], want)
		}
	}
}

// Ids made one after another sort in that order, however fast.
func TestSendIDsSortInOrderMade(t *testing.T) {
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = newSendID()
	}
	sorted := slices.Clone(ids)
	sortSends(sorted)
	if !slices.Equal(ids, sorted) {
		t.Fatal("send ids made in a row do not sort in the order they were made")
	}
}
