package bot

import "context"

// Deliverer sends answer text that no longer fits the reply stream as one
// separate message: after the platform's stream window closed, or when the
// answer outgrew one frame. The WeCom layer implements it with a markdown
// POST to the message's response_url, which WeCom accepts once.
//
// The engine calls it at most once per turn, after the turn ended, and never
// again for the same text: a failed call is logged, not retried, because a
// retry could show the text twice. What one message cannot carry (or what a
// failed call could not) waits in the store for the user's /more.
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
	// More is set when the answer goes on past this message: Markdown then
	// ends by telling the user to send /more.
	More bool
	// Markdown is what to post: Body plus the card's status line.
	Markdown string
	// Body is the answer text this message carries, verbatim: the stream's
	// part, this Body and the /more parts are the whole answer exactly once.
	Body string
}
