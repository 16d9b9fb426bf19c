package cards_test

import (
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/cards"
)

// A turn whose answer outgrows one WeCom stream: each frame says whether the
// stream must finish and where the next message continues.
func ExampleCard_Stream() {
	c := cards.New(cards.WithStreamLimit(1024))
	c.Apply(acp.UpdateAgentThoughtText("Reading the code."))
	c.Apply(acp.UpdateAgentMessageText(strings.Repeat("A long answer line.\n", 80)))
	c.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))

	from, shown := 0, 0
	for n := 1; ; n++ {
		fr := c.Stream(from, shown)
		fmt.Printf("stream %d: body [%d,%d) must finish: %v\n", n, fr.BodyStart, fr.BodyEnd, fr.MustFinish)
		if !fr.MustFinish {
			break
		}
		// Send fr.Content with finish=true, then continue in a new message.
		from, shown = fr.BodyEnd, fr.BodyEnd
	}
	// Output:
	// stream 1: body [0,760) must finish: true
	// stream 2: body [760,1520) must finish: true
	// stream 3: body [1520,1600) must finish: false
}

// How the bot engine drives a WeCom AI-bot stream with a Publisher. The
// render and emit functions both run on the publisher's goroutine, so the
// stream state they share needs no lock. After Close the card no longer
// changes, so the bot renders whatever the last frame left for follow-up
// messages straight from it.
func ExamplePublisher() {
	type frame struct {
		cards.StreamFrame
		done bool
	}
	var (
		streamID   = "stream-1"
		from, seen int
		last       frame
	)
	send := func(id, content string, finish bool) { /* keep the frame for WeCom's refresh callbacks */ }
	newStream := func() string { /* a new stream, or a markdown POST to response_url */ return "stream-2" }

	card := cards.New(cards.WithProgressStyle(cards.ProgressThink))
	var p *cards.Publisher[frame]
	p = cards.NewPublisher(card,
		func(c *cards.Card) frame { return frame{c.Stream(from, seen), c.Status().Terminal()} },
		func(f frame, final bool) {
			last = f
			send(streamID, f.Content, f.MustFinish || f.done || final)
			seen = f.BodyEnd
			if f.MustFinish {
				streamID, from, seen = newStream(), f.BodyEnd, f.BodyEnd
				if !final {
					p.Refresh() // show the continuation now, not after the interval
				}
			}
		})

	// The agent's sink calls p.Apply(update) and p.Notice(level, text).
	p.Apply(acp.UpdateAgentMessageText("Hello"))
	p.SetStatus(cards.Finished(acp.StopReasonEndTurn, nil))
	p.Close() // emits the final frame and stops the goroutine

	for last.MustFinish { // the answer outgrew the last stream
		fr := card.Stream(from, seen)
		send(streamID, fr.Content, true)
		last.MustFinish = fr.MustFinish
		if fr.MustFinish {
			streamID, from, seen = newStream(), fr.BodyEnd, fr.BodyEnd
		}
	}
	fmt.Printf("%s finished: %v, last frame: %q\n", streamID, last.done, last.Content)
	// Output:
	// stream-1 finished: true, last frame: "Hello"
}
