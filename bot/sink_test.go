package bot

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
)

// The agent's first words on the card go out at once, not an update
// interval after the turn's "running" frame; later ones are throttled as
// before. The interval is an hour, so a frame that arrives was not waiting
// for it.
func TestFirstShownUpdateIsNotThrottled(t *testing.T) {
	type shot struct {
		body  string
		final bool
	}
	shots := make(chan shot, 16)
	card := cards.New()
	render := func(c *cards.Card) frame {
		body := c.Body()
		return frame{show: func(_ context.Context, final bool) { shots <- shot{body, final} }}
	}
	pub := cards.NewPublisher(card, render, func(f frame, final bool) { f.show(context.Background(), final) },
		cards.WithInterval(time.Hour))
	sink := cardSink{pub: pub, agentSpoke: new(atomic.Bool)}
	next := func() shot {
		t.Helper()
		select {
		case s := <-shots:
			return s
		case <-time.After(time.Minute):
			t.Fatal("no frame within a minute: the update waited for the throttle")
			return shot{}
		}
	}
	pub.Refresh() // the turn's start, as turnRunner.run does
	if s := next(); s != (shot{"", false}) {
		t.Fatalf("first frame %+v, want the empty running card", s)
	}
	// Not shown on the card: it neither spends the first-words frame nor
	// counts as progress.
	sink.Update(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{}})
	if sink.agentSpoke.Load() {
		t.Fatal("a usage update counted as the agent's first progress")
	}
	sink.Update(acp.UpdateAgentMessageText("Hello"))
	if s := next(); s != (shot{"Hello", false}) {
		t.Fatalf("frame after the first chunk %+v, want Hello at once", s)
	}
	sink.Update(acp.UpdateAgentMessageText(" world"))
	pub.Close()
	if s := next(); s != (shot{"Hello world", true}) {
		t.Fatalf("next frame %+v, want only the final one: the second chunk is throttled", s)
	}
}
