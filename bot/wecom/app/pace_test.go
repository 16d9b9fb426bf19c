package app

import (
	"fmt"
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
