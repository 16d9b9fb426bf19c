package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wecodex/wecodex/internal/codextest"
	"github.com/wecodex/wecodex/internal/scriptedmodel"
	"github.com/wecodex/wecodex/internal/wecomtest"
)

// A long answer: 40 paragraphs of ~1.5 KB go out as 40 markdown messages
// (each within 2,048 bytes, cut between paragraphs), every byte once and in
// order; with the progress card that is 41 sends, more than WeCom's 30 a
// minute, so the channel queues them on its clock and the fake, reading the
// same clock, drops none.
func TestLongAnswerPacedUnderRateLimit(t *testing.T) {
	var paras []string
	for i := range 40 {
		paras = append(paras, fmt.Sprintf("Paragraph %02d: %s.", i, strings.TrimSpace(strings.Repeat("lorem ipsum ", 125))))
	}
	answer := strings.Join(paras, "\n\n")
	h := codextest.Start(t, scriptedmodel.Sequence(scriptedmodel.Reply(scriptedmodel.Message("final_answer", answer))))
	r := newRig(t)
	n := r.replica(t, h, false)
	start := r.clock.Now()
	sendText(t, n.cb, testUser, "write a lot")
	if _, err := r.api.Wait(waitCtx(t), func(rec wecomtest.AppRecord) bool {
		return rec.MsgType == "markdown" && strings.HasPrefix(rec.Content, "Paragraph 39:")
	}); err != nil {
		t.Fatal(err)
	}
	var parts []string
	sends := r.api.Delivered(testUser, "")
	for i, rec := range sends {
		if rec.MsgType == "markdown" {
			parts = append(parts, rec.Content)
			if len(rec.Content) > cardsMax || !strings.HasPrefix(rec.Content, fmt.Sprintf("Paragraph %02d:", len(parts)-1)) {
				t.Errorf("part %d is %d bytes, starting %.16q: want one paragraph within 2,048 bytes", i, len(rec.Content), rec.Content)
			}
		}
		if i >= wecomtest.AppSendsPerMinute {
			if gap := rec.At.Sub(sends[i-wecomtest.AppSendsPerMinute].At); gap < time.Minute {
				t.Errorf("send %d is %s after send %d: over 30 a minute", i, gap, i-wecomtest.AppSendsPerMinute)
			}
		}
	}
	if len(sends) != 41 || len(parts) != 40 {
		t.Fatalf("%d sends, %d answer parts; want 41 and 40", len(sends), len(parts))
	}
	if got := strings.Join(parts, ""); got != answer {
		t.Fatalf("the parts joined differ from the answer (%d bytes vs %d)", len(got), len(answer))
	}
	for _, rec := range r.api.Records() {
		if rec.Dropped {
			t.Fatalf("send %d dropped by the rate limit", rec.Seq)
		}
	}
	if waited := r.clock.Now().Sub(start); waited < time.Minute {
		t.Fatalf("the clock moved %s: the sends were not paced", waited)
	}
}

const cardsMax = 2048

// pacerStore answers ReserveSend with at or err.
type pacerStore struct {
	at  time.Time
	err error
}

func (p pacerStore) ReserveSend(context.Context, string, string, time.Time, int, int, time.Duration) (time.Time, error) {
	return p.at, p.err
}

// The pacer waits until the reserved time; with the store down it paces
// this replica alone at 30 a minute (2 s a send) instead of dropping or
// bursting.
func TestPacerWaits(t *testing.T) {
	clock := newFakeClock()
	t0 := clock.Now()
	p := &pacer{store: pacerStore{at: t0.Add(61 * time.Second)}, clock: clock, agentID: "1", log: slog.New(slog.DiscardHandler)}
	if err := p.wait(context.Background(), "u"); err != nil || clock.Now().Sub(t0) != 61*time.Second {
		t.Fatalf("waited %s (%v), want 61s", clock.Now().Sub(t0), err)
	}
	p.store = pacerStore{at: t0} // in the past: no wait
	t1 := clock.Now()
	if err := p.wait(context.Background(), "u"); err != nil || !clock.Now().Equal(t1) {
		t.Fatalf("waited %s for a past reservation", clock.Now().Sub(t1))
	}
	p.store = pacerStore{err: errors.New("redis: connection refused")}
	if err := p.wait(context.Background(), "u"); err != nil || clock.Now().Sub(t1) != 2*time.Second {
		t.Fatalf("with the store down waited %s (%v), want 2s", clock.Now().Sub(t1), err)
	}
}
