package playground

import (
	"testing"
)

func TestBoardRendersFramesAndContinuations(t *testing.T) {
	b := newBoard()
	b.add("m1", "hi")
	v := b.byID["m1"].view
	if v.State != StateSending || v.Status != "sending" || v.Seq != 1 {
		t.Fatalf("new card = %+v", v)
	}
	b.frame("m1", "<think>\nLooking.\n</think>\n\nPart one\n\n_(this reply is taking long: the rest of the answer follows in a separate message)_", true)
	v = b.byID["m1"].view
	if v.State != StateRunning || v.Status != "running (continues in a separate message)" || v.Progress != "<p>Looking.</p>\n" {
		t.Fatalf("rolled-over card = %+v", v)
	}
	// An unchanged frame is no change.
	b.frame("m1", "<think>\nLooking.\n</think>\n\nPart one\n\n_(this reply is taking long: the rest of the answer follows in a separate message)_", true)
	if got := b.byID["m1"].view.Seq; got != 2 {
		t.Fatalf("seq after an unchanged frame = %d, want 2", got)
	}
	b.update("m1", func(a *answer) { a.posts = append(a.posts, "<think>\nLooked.\n</think>\n\nPart *two*") })
	v = b.byID["m1"].view
	wantBody := "<p>Part one</p>\n<p><em>(this reply is taking long: the rest of the answer follows in a separate message)</em></p>\n" +
		"<div class=\"continued\"><p>Part <em>two</em></p>\n</div>\n"
	if v.State != StateDone || v.Status != "done" || v.Progress != "<p>Looked.</p>\n" || v.Body != wantBody {
		t.Fatalf("continued card = %+v\nwant body %q", v, wantBody)
	}
	b.update("m1", func(a *answer) { a.refused++ })
	if v = b.byID["m1"].view; v.Body != wantBody+`<p class="note">WeCom refused a further response_url message (one is accepted per message).</p>` {
		t.Fatalf("body with a refused post = %q", v.Body)
	}

	views, seq, _ := b.since(3)
	if len(views) != 1 || views[0].ID != "m1" || seq != 4 {
		t.Fatalf("since(3) = %d views, seq %d", len(views), seq)
	}
	if views, _, _ := b.since(4); len(views) != 0 {
		t.Fatalf("since(4) = %+v, want nothing", views)
	}
}

func TestBoardProblem(t *testing.T) {
	b := newBoard()
	b.add("m1", "hi")
	b.update("m1", func(a *answer) { a.problem = "could not send the message to the bot: connection refused" })
	v := b.byID["m1"].view
	if v.State != StateFailed || v.Status != "failed: could not send the message to the bot: connection refused" {
		t.Fatalf("card = %+v", v)
	}
}
