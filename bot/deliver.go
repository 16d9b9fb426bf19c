package bot

import "context"

// Deliverer sends answer text that no longer fits the reply stream as a
// separate message: after the platform's stream window closed, or when the
// answer outgrew one frame. The WeCom layer implements it with a markdown
// POST to the message's response_url.
//
// Each call is one message. The engine calls it in order, once per part,
// after the turn ended, and never again for the same text: a failed call is
// logged, not retried, because a retry could show the text twice.
type Deliverer interface {
	Deliver(ctx context.Context, d Delivery) error
}

// Delivery is one continuation message of a turn's answer.
type Delivery struct {
	Conversation string
	User         string
	// StreamID is the stream this message continues.
	StreamID string
	// ReplyURL is the Message.ReplyURL of the message that started the turn.
	ReplyURL string
	// Part is 1 for the first continuation of the turn, then 2, 3, …; Last
	// is set on the final one.
	Part int
	Last bool
	// Markdown is what to post: Body plus the card's status line.
	Markdown string
	// Body is the answer text this part carries, verbatim: the Body of all
	// parts, after the text the stream showed, is the whole answer exactly
	// once.
	Body string
}
