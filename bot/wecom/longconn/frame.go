// Package longconn is the WeCom AI bot's long-connection channel: the bot
// dials WeCom over WebSocket (no public URL), subscribes, keeps the
// connection alive, receives callbacks and pushes its replies as frames
// (WECOM-PROTOCOL.md §A). One replica holds the connection at a time (a
// Redis lease with a fencing token); frames rendered elsewhere, and
// proactive sends such as a turn's approval card, reach the holder through
// Redis.
package longconn

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/wecodex/wecodex/bot/wecom"
)

// Commands of the long connection (§A.2–A.8).
const (
	CmdSubscribe     = "aibot_subscribe"
	CmdPing          = "ping"
	CmdMsgCallback   = "aibot_msg_callback"
	CmdEventCallback = "aibot_event_callback"
	CmdRespond       = "aibot_respond_msg"
	CmdWelcome       = "aibot_respond_welcome_msg"
	CmdUpdate        = "aibot_respond_update_msg"
	CmdSend          = "aibot_send_msg"
)

// WeCom error codes the channel acts on (§A.13).
const (
	CodeBadCredentials = 853000
	CodeInvalidReqID   = 846605
	CodeStreamExpired  = 846608
)

// Frame is one WebSocket text frame: a request (Cmd set), a callback pushed
// by WeCom (Cmd set), or the ack of a request (no Cmd, Errcode set).
type Frame struct {
	Cmd     string          `json:"cmd,omitempty"`
	Headers Headers         `json:"headers"`
	Body    json.RawMessage `json:"body,omitempty"`
	Errcode int             `json:"errcode,omitempty"`
	Errmsg  string          `json:"errmsg,omitempty"`
}

// Headers carries the req_id that pairs a request with its ack.
type Headers struct {
	ReqID string `json:"req_id"`
}

// ErrAckTimeout means a request was written but no ack came within the ack
// timeout: WeCom may or may not have applied it (an unknown outcome).
var ErrAckTimeout = errors.New("no ack within the ack timeout: outcome unknown")

// ErrConnLost means the connection ended while a request awaited its ack:
// the outcome is unknown, as with ErrAckTimeout.
var ErrConnLost = errors.New("connection closed before the ack: outcome unknown")

// ErrNotSent means the request could not be written (the connection was
// already failing): WeCom cannot have applied it, so it may be sent again.
var ErrNotSent = errors.New("request not written")

// Code is the WeCom errcode err carries, or 0.
func Code(err error) int {
	var ae *wecom.APIError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return 0
}

// sanitize removes the control characters below 0x20 except TAB and LF, as
// the official SDK does before parsing: WeCom has sent them raw inside JSON
// strings, which encoding/json rightly rejects.
func sanitize(data []byte) []byte {
	clean := true
	for _, b := range data {
		if b < 0x20 && b != '\t' && b != '\n' {
			clean = false
			break
		}
	}
	if clean {
		return data
	}
	out := make([]byte, 0, len(data))
	for _, b := range data {
		if b >= 0x20 || b == '\t' || b == '\n' {
			out = append(out, b)
		}
	}
	return out
}

// decodeFrame parses an inbound frame after sanitising it.
func decodeFrame(data []byte) (Frame, error) {
	var f Frame
	if err := json.Unmarshal(sanitize(data), &f); err != nil {
		return Frame{}, fmt.Errorf("decode long-connection frame: %w", err)
	}
	return f, nil
}

// NewReqID makes a request id the way the SDK does, <prefix>_<ms>_<8 hex>:
// WeCom sorts acks of subscribe and ping by that prefix.
func NewReqID(prefix string) string {
	return prefix + "_" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "_" + wecom.RandomHex(4)
}
