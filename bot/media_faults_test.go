package bot_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/internal/codextest"
	sm "github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/testenv"
	"github.com/wecodex/wecodex/store"
)

// failingEnqueue is the dedupe whose claim-and-enqueue fails, as when Redis
// stalls past the callback's deadline.
type failingEnqueue struct{ *store.Dedupe }

func (failingEnqueue) ClaimAndEnqueue(context.Context, string, string, string, string, []byte, int) (string, bool, int, bool, error) {
	return "", false, 0, false, context.DeadlineExceeded
}

// A delivery that could not be queued leaves no bytes in Redis; the
// platform's retry stores and queues them; a repeat of it stores nothing
// lasting; the picture reaches the model once.
func TestAttachmentsOfAFailedOrRepeatedDelivery(t *testing.T) {
	rig := newMediaRig(t, sm.Sequence(sm.Reply(sm.Message(sm.PhaseFinalAnswer, "Seen."))))
	pic := codextest.Picture(t, 3)
	m := alice("m1", "What is it?", bot.Attachment{Kind: bot.AttachImage, Name: "p.png", Data: pic})
	cfg := bot.Config{LeaseTTL: store.LeaseTTL, HeartbeatTTL: store.ReplicaTTL, Replica: "r1", WorkspaceRoot: rig.root, UpdateInterval: time.Millisecond,
		Access: bot.Access{AllowUsers: []string{"alice"}}, Logger: quietLog()}
	st := testenv.EngineStore(rig.st)
	st.Dedupe = failingEnqueue{rig.st.Dedupe}
	failing, err := bot.New(cfg, st, rig.agent, rig.chat)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := failing.Receive(t.Context(), m); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Receive on a failing store: %v, want the deadline exceeded", err)
	}
	if keys := rig.attachmentKeys(t); len(keys) != 0 {
		t.Fatalf("Redis keeps %q after the failed delivery", keys)
	}

	e := rig.engine(t, "r1", rig.root)
	rc, err := e.Receive(t.Context(), m) // the platform's retry
	if err != nil {
		t.Fatal(err)
	}
	want := []string{rig.st.DB.Keys().Conv("single:alice").Attachment(rc.Reply.To.Stream, 0)}
	if keys := rig.attachmentKeys(t); !slices.Equal(keys, want) {
		t.Fatalf("Redis keeps %q, want %q", keys, want)
	}
	if again, err := e.Receive(t.Context(), m); err != nil || !again.Current || again.Reply.To.Stream != rc.Reply.To.Stream {
		t.Fatalf("repeat: %+v %v, want the first stream", again, err)
	}
	if keys := rig.attachmentKeys(t); !slices.Equal(keys, want) {
		t.Fatalf("after the repeat Redis keeps %q, want %q", keys, want)
	}

	run(t, e)
	rig.chat.waitFor(t, "finish")
	reqs := rig.h.Server.ModelRequests()
	if len(reqs) != 1 || len(reqs[0].UserImages) != 1 || !bytes.Equal(reqs[0].UserImages[0].Data, pic) {
		t.Fatalf("%d model requests; want one, with the picture", len(reqs))
	}
	if keys := rig.attachmentKeys(t); len(keys) != 0 {
		t.Fatalf("Redis keeps %q after the turn", keys)
	}
}

// attachmentKeys lists the attachment keys under the rig's prefix, sorted.
func (r *mediaRig) attachmentKeys(t *testing.T) []string {
	t.Helper()
	keys, err := testenv.Redis(t).Keys(t.Context(), r.st.DB.Keys().Prefix()+"*:attachment:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}
