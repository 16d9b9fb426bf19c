package longconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// SendStore keeps the proactive sends made on any replica until the holder
// takes each, once (store.LongConn implements it).
type SendStore interface {
	PutSend(ctx context.Context, botID, id string, send []byte) error
	// ClaimSend takes send id for the holder of token; nil when it was
	// taken already or token no longer holds the lease.
	ClaimSend(ctx context.Context, botID, id string, token int64) ([]byte, error)
	PendingSends(ctx context.Context, botID string) ([]string, error)
}

// Send has body sent with aibot_send_msg, once, by whichever replica holds
// the connection: it is recorded in Redis and announced to the holder (this
// replica too, when it holds it), which takes it and sends it; a new holder
// sends what its predecessor did not take. A nil error means the send is
// recorded, not that WeCom has it. Send never waits on WeCom.
func (c *Connection) Send(ctx context.Context, body any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode %s: %w", CmdSend, err)
	}
	return c.cfg.Store.PutSend(ctx, c.cfg.Client.BotID, newSendID(), data)
}

// claim takes send id for the holder of token, or returns nil.
func (c *Connection) claim(ctx context.Context, token int64, id string) []byte {
	body, err := c.cfg.Store.ClaimSend(ctx, c.cfg.Client.BotID, id, token)
	if err != nil {
		c.cfg.Log.Warn("long connection: cannot take a send from Redis", "send", id, "err", err)
		return nil
	}
	return body
}

// send sends a claimed body on cl. One that never left (the connection was
// lost before it could be written, and the holding ended) goes back for the
// next holder; any other outcome is final, since a repeat could show the
// same card twice.
func (c *Connection) send(ctx context.Context, cl *Client, id string, body []byte) error {
	if file, err := c.sendRecordedFile(ctx, cl, body); file {
		// Said in the chat when it failed; never repeated, as a repeat could
		// send the file twice.
		return err
	}
	_, err := cl.Request(ctx, CmdSend, id, json.RawMessage(body))
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotSent) {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.RenewEvery)
		defer cancel()
		if perr := c.cfg.Store.PutSend(pctx, c.cfg.Client.BotID, id, body); perr != nil {
			c.cfg.Log.Warn("long connection: a send not written could not be put back", "send", id, "err", perr)
		}
	}
	c.cfg.Log.Warn("long connection: aibot_send_msg failed", "send", id, "err", err)
	return err
}

// sendWaiting sends what no holder took yet (this holder may be new).
func (c *Connection) sendWaiting(ctx context.Context, cl *Client, token int64) {
	ids, err := c.cfg.Store.PendingSends(ctx, c.cfg.Client.BotID)
	if err != nil {
		c.cfg.Log.Warn("long connection: cannot list waiting sends", "err", err)
		return
	}
	sortSends(ids)
	for _, id := range ids {
		if body := c.claim(ctx, token, id); body != nil {
			c.order.do(chatOf(body), &c.sending, func() { _ = c.send(ctx, cl, id, body) })
		}
	}
}
