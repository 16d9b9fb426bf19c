package playground

import (
	"errors"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
)

// TestReadStreamRoundTrip: every status a card can have reads back from the
// frame Card.Stream renders, with the progress and the body apart, so the
// reader of frames never keeps its own copy of the wording.
func TestReadStreamRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		status cards.Status
		want   cards.Status // what the frame can say of it
		line   string
	}{
		{"running", cards.Running(), cards.Running(), ""},
		{"waiting", cards.WaitingApproval("#2 `make deploy` — send /approve (#2)"), cards.WaitingApproval("#2 `make deploy` — send /approve (#2)"),
			"⏸ Waiting for approval: #2 `make deploy` — send /approve (#2)"},
		{"done", cards.Finished(acp.StopReasonEndTurn, nil), cards.Running(), ""}, // a done frame has no line: the finish flag says it
		{"stopped", cards.Finished(acp.StopReasonMaxTokens, nil), cards.Status{State: cards.StateDone, Detail: "max_tokens"}, "_Stopped: max_tokens_"},
		{"cancelled", cards.Finished(acp.StopReasonCancelled, nil), cards.Status{State: cards.StateCancelled}, "⏹ Cancelled"},
		{"failed", cards.Finished("", errors.New("turn failed: stream disconnected")), cards.Status{State: cards.StateFailed, Detail: "turn failed: stream disconnected"},
			"❌ Failed: turn failed: stream disconnected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cards.New()
			c.Apply(acp.UpdateAgentThoughtText("Reading </think> the code."))
			c.Apply(acp.UpdateAgentMessageText("The answer."))
			c.SetStatus(tt.status)
			v := readStream(c.Stream(0, 0).Content)
			wantProgress := "Reading </think> the code."
			if v.Status != tt.want || v.Line != tt.line || v.Body != "The answer." || v.Progress != wantProgress || v.Continues {
				t.Fatalf("read back %+v; want status %+v, line %q, body %q, progress %q", v, tt.want, tt.line, "The answer.", wantProgress)
			}
			if got := cards.StatusLine(tt.status); got != tt.line && tt.name != "done" {
				t.Fatalf("StatusLine = %q, want %q", got, tt.line)
			}
		})
	}
}

// TestReadStreamOtherWriters: bot's placeholder and queued reply and the
// webhook's early end are written with cards' lines and read back.
func TestReadStreamOtherWriters(t *testing.T) {
	if v := readStream(cards.ThinkingLine); v != (frameView{}) {
		t.Errorf("placeholder = %+v, want running with nothing to show", v)
	}
	if got, want := cards.QueuedLine(2), "⏳ Queued (position 2) — waiting for the running turn to finish."; got != want {
		t.Errorf("QueuedLine(2) = %q, want %q", got, want)
	}
	if v := readStream(cards.QueuedLine(2)); v != (frameView{Queued: 2}) {
		t.Errorf("queued reply = %+v, want position 2 and nothing else", v)
	}
	if v := readStream("⏳ Queued (position x) — waiting for the running turn to finish."); v.Queued != 0 || v.Body == "" {
		t.Errorf("a queue line without a position = %+v, want body", v)
	}
	cut := "<think>\nLooking.\n</think>\n\nPart one\n\n" + cards.WindowClosedNote
	if v := readStream(cut); !v.Continues || v.Body != "Part one\n\n"+cards.WindowClosedNote || v.Progress != "Looking." || v.Status != cards.Running() {
		t.Errorf("window closed = %+v", v)
	}
	c := cards.New(cards.WithStreamLimit(600))
	for range 40 {
		c.Apply(acp.UpdateAgentMessageText("A long answer line.\n"))
	}
	fr := c.Stream(0, 0)
	if v := readStream(fr.Content); !fr.MustFinish || !v.Continues {
		t.Errorf("rolled-over frame read as %+v (must finish %v), want it to continue", v, fr.MustFinish)
	}
	if v := readStream("Just text, _Stopped: not a status line"); v.Body != "Just text, _Stopped: not a status line" || v.Line != "" {
		t.Errorf("unknown text = %+v, want all body", v)
	}
}
