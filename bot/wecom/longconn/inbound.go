package longconn

import (
	"errors"
	"fmt"

	"github.com/wecodex/wecodex/bot/wecom"
)

// ErrIgnored marks a callback the channel drops on purpose (no sender, a
// system sender, a group message without its chatid).
var ErrIgnored = errors.New("callback ignored")

// ParseCallback decodes a message or event callback into the AI bot's
// callback model, the webhook's too: a message (wecom.KindMessage) or an
// event (wecom.KindEvent), with the frame's req_id.
func ParseCallback(f Frame) (wecom.Callback, error) {
	if f.Cmd != CmdMsgCallback && f.Cmd != CmdEventCallback {
		return wecom.Callback{}, fmt.Errorf("parse callback: unexpected cmd %q", f.Cmd)
	}
	cb, err := wecom.DecodeCallback(f.Body)
	if err != nil {
		return wecom.Callback{}, fmt.Errorf("parse callback body: %w", err)
	}
	cb.ReqID = f.Headers.ReqID
	if cb.ChatType == "" {
		cb.ChatType = wecom.ChatSingle
	}
	if cb.UserID == "" || cb.UserID == "sys" || (cb.ChatType == wecom.ChatGroup && cb.ChatID == "") {
		return wecom.Callback{}, fmt.Errorf("%w: sender %q chattype %q chatid %q", ErrIgnored, cb.UserID, cb.ChatType, cb.ChatID)
	}
	if f.Cmd == CmdEventCallback {
		cb.Kind = wecom.KindEvent
		return cb, nil
	}
	if err := cb.ReadContent(f.Body); err != nil {
		return wecom.Callback{}, fmt.Errorf("parse message %s: %w", cb.MsgID, err)
	}
	return cb, nil
}
