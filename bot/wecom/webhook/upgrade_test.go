package webhook_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/bot/wecom"
	"github.com/wecodex/wecodex/bot/wecom/webhook"
	"github.com/wecodex/wecodex/internal/testenv"
)

// legacyFrame is a frame exactly as the release before this one (f4bf939)
// stored it: a state byte, 0x01, the owner's length as a uvarint, the owner
// (the conversation, a NUL and the user, in a 1:1 chat), the content.
func legacyFrame(state byte, conv, user, content string) string {
	owner := conv + "\x00" + user
	b := []byte{state, 0x01}
	b = binary.AppendUvarint(b, uint64(len(owner)))
	return string(append(append(b, owner...), content...))
}

// A rolling deploy: Redis holds what a replica of the previous release
// (f4bf939) wrote, written here key by key as that release writes them. It
// was running alice's first message (lease, fencing counter, owner, running
// record, a running frame) when it died, and her second message waits in
// the queue (dedupe claim, queue, pending mark, a waiting frame). A replica
// of this release answers refreshes of both streams from the old frames
// (to alice only), answers a retry of the queued message with its stream,
// once the dead turn's lease lapses runs it once more on its stream, and
// then the queued message once.
func TestStateOfThePreviousRelease(t *testing.T) {
	prefix := testenv.Prefix(t, "upgrade")
	ctx := context.Background()
	rdb := testenv.Redis(t)
	const conv = "single:alice"
	convKey := func(suffix string) string { return prefix + "{conv:" + conv + "}:" + suffix }
	now := time.Now().UnixMilli()
	running := fmt.Sprintf(`{"msgid":"m1","stream":"old-s1","conv":"single:alice","user":"alice","text":"started before the upgrade","chat":"single","reply_url":"https://reply/m1","channel":"wecom_aibot","received":%d}`, now)
	waiting := fmt.Sprintf(`{"msgid":"m2","stream":"old-s2","conv":"single:alice","user":"alice","text":"queued before the upgrade","chat":"single","reply_url":"https://reply/m2","channel":"wecom_aibot","received":%d}`, now)
	const queuedText = "⏳ Queued (position 1) — waiting for the running turn to finish."
	for _, err := range []error{
		// The running turn: TakeTurn's script.
		rdb.HSet(ctx, convKey("lease"), "token", 1, "replica", "old-replica").Err(),
		rdb.PExpire(ctx, convKey("lease"), time.Hour).Err(), // lapses when the test says
		rdb.Set(ctx, convKey("fence"), 1, 30*24*time.Hour).Err(),
		rdb.Set(ctx, convKey("owner"), "old-replica", 30*24*time.Hour).Err(),
		rdb.Set(ctx, convKey("running"), running, 10*time.Minute).Err(),
		rdb.Set(ctx, prefix+"frame:old-s1", legacyFrame('R', conv, "alice", "💭 Thinking…"), 10*time.Minute).Err(),
		// The queued message: claimAndEnqueue's script, then the pending mark.
		rdb.Set(ctx, convKey("dedupe:5:alice:m2"), "old-s2", 24*time.Hour).Err(),
		rdb.RPush(ctx, convKey("queue"), waiting).Err(),
		rdb.PExpire(ctx, convKey("queue"), time.Hour).Err(),
		rdb.SAdd(ctx, prefix+"pending", conv).Err(),
		rdb.Expire(ctx, prefix+"pending", time.Hour).Err(),
		rdb.Set(ctx, prefix+"frame:old-s2", legacyFrame('W', conv, "alice", queuedText), 10*time.Minute).Err(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	st := testenv.OpenStores(t, prefix)
	r := newReplica(t, st, testConfig(t, "new"))
	r.run(t)

	alice := webhook.Asker{Conversation: wecom.SingleChat("alice"), User: "alice"}
	if f, ok, err := r.e.Frame(ctx, "old-s1", alice); err != nil || !ok || f.Content != "💭 Thinking…" || f.Finish {
		t.Fatalf("refresh of the running stream = %+v %v %v, want the old release's running frame", f, ok, err)
	}
	if f, ok, err := r.e.Frame(ctx, "old-s2", alice); err != nil || !ok || f.Content != queuedText {
		t.Fatalf("refresh of the queued stream = %+v %v %v, want the old release's waiting frame", f, ok, err)
	}
	bob := webhook.Asker{Conversation: wecom.SingleChat("bob"), User: "bob"}
	if f, ok, err := r.e.Frame(ctx, "old-s2", bob); err != nil || ok {
		t.Fatalf("bob's refresh of alice's stream = %+v %v %v, want nothing", f, ok, err)
	}
	// WeCom retries the queued message: it is a repeat, answered with its stream.
	if f := receive(t, r.e, msg("m2", "alice", "queued before the upgrade")); f.StreamID != "old-s2" || f.Content != queuedText {
		t.Fatalf("retry of the queued message = %+v, want the old stream's frame", f)
	}

	// The old replica is gone (no heartbeat); its lease lapses.
	if held, _, err := st.RenewLease(ctx, conv, 1, time.Millisecond); err != nil || !held {
		t.Fatalf("let the old release's lease lapse: held %v, %v", held, err)
	}
	lost := acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: "the server running this turn stopped before it finished. It runs once more."}
	if got, want := waitFinished(t, r.e, "old-s1").Content, (card{before: []acpbridge.Notice{lost}, text: "started before the upgrade", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("the dead turn's card:\n%q\nwant\n%q", got, want)
	}
	got := waitFinished(t, r.e, "old-s2").Content
	if want := (card{text: "queued before the upgrade", withAnswer: true, status: done()}).render(); got != want {
		t.Fatalf("the queued message's card:\n%q\nwant\n%q", got, want)
	}
	if p := r.agent.Prompts(); !slices.Equal(p, []string{"started before the upgrade", "queued before the upgrade"}) {
		t.Fatalf("prompts %q, want the dead turn's message once more, then the queued one", p)
	}
}
