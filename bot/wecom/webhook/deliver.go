package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// Deliverer sends answer text that no longer fits the reply stream as one
// separate message: after the platform's stream window closed, or when the
// answer outgrew one frame. ResponseURLDeliverer implements it with a markdown
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
	Conversation bot.Conversation
	User         string
	// StreamID is the stream this message continues.
	StreamID string
	// ReplyURL is the bot.Message.Reply.URL of the message that started the turn.
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

// ResponseURLDeliverer delivers the part of an answer that outlived the
// stream (Deliverer) as a markdown message to the response_url of the
// message that started the turn.
//
// WeCom accepts one POST per response_url, so the engine sends at most one
// per turn; what does not fit waits for the user's /more.
type ResponseURLDeliverer struct {
	// Hosts are where a response_url may point (wecom.allowed_hosts); nil
	// means wecom.DefaultAllowedHosts.
	Hosts *wecom.AllowedHosts
	// Client posts the messages; nil means Hosts' client with a 10 s
	// timeout.
	Client *http.Client
}

var _ Deliverer = (*ResponseURLDeliverer)(nil)

const deliverTimeout = 10 * time.Second

// Deliver posts d.Markdown to d.ReplyURL.
func (r *ResponseURLDeliverer) Deliver(ctx context.Context, d Delivery) error {
	if d.ReplyURL == "" {
		return errors.New("deliver continuation: the message had no response_url")
	}
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	if err := wecom.PostResponseURL(ctx, r.Hosts, r.Client, d.ReplyURL, wecom.MarkdownMessage(d.Markdown)); err != nil {
		return fmt.Errorf("deliver the rest of stream %s: %w", d.StreamID, err)
	}
	return nil
}
