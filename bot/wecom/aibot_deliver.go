package wecom

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wecodex/wecodex/bot"
)

// ResponseURLDeliverer delivers the part of an answer that outlived the
// stream (bot.Deliverer) as a markdown message to the response_url of the
// message that started the turn.
//
// WeCom accepts one POST per response_url, so the engine sends at most one
// per turn; what does not fit waits for the user's /more.
type ResponseURLDeliverer struct {
	// Client posts the messages; nil means a client with a 10 s timeout.
	Client *http.Client
}

var _ bot.Deliverer = (*ResponseURLDeliverer)(nil)

const deliverTimeout = 10 * time.Second

// Deliver posts d.Markdown to d.ReplyURL.
func (r *ResponseURLDeliverer) Deliver(ctx context.Context, d bot.Delivery) error {
	if d.ReplyURL == "" {
		return errors.New("deliver continuation: the message had no response_url")
	}
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: deliverTimeout}
	}
	if err := PostResponseURL(ctx, client, d.ReplyURL, MarkdownMessage(d.Markdown)); err != nil {
		return fmt.Errorf("deliver the rest of stream %s: %w", d.StreamID, err)
	}
	return nil
}
