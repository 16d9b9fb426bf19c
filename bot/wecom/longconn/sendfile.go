package longconn

import (
	"context"
	"encoding/json"
	"fmt"
)

// fileSend is a recorded send whose file the holder uploads before it sends
// the message: the turn that made the file may run on any replica, the
// upload commands only go on the holder's connection.
type fileSend struct {
	ChatID string      `json:"chatid"`
	Upload *fileUpload `json:"wecodex_upload"`
}

type fileUpload struct {
	Type     string `json:"type"`
	Filename string `json:"filename"`
	Data     []byte `json:"data"`
}

// SendFile sends data to chatID as a message of type typ ("file" or
// "image") named name: uploaded with aibot_upload_media_*, then sent with
// aibot_send_msg. On the holder it happens now and err says how it went;
// elsewhere it is recorded for the holder (queued true), which says in the
// chat when it fails.
func (c *Connection) SendFile(ctx context.Context, chatID, typ, name string, data []byte) (queued bool, err error) {
	c.mu.Lock()
	cl := c.client
	c.mu.Unlock()
	if cl != nil {
		return false, sendUploaded(ctx, cl, chatID, typ, name, data)
	}
	rec, err := json.Marshal(fileSend{ChatID: chatID, Upload: &fileUpload{Type: typ, Filename: name, Data: data}})
	if err != nil {
		return false, fmt.Errorf("encode file send: %w", err)
	}
	return true, c.cfg.Store.PutSend(ctx, c.cfg.Client.BotID, newSendID(), rec)
}

// sendUploaded uploads data and sends it as a media message.
func sendUploaded(ctx context.Context, s Sender, chatID, typ, name string, data []byte) error {
	mediaID, err := Upload(ctx, s, typ, name, data)
	if err != nil {
		return err
	}
	body := map[string]any{"chatid": chatID, "msgtype": typ, typ: map[string]string{"media_id": mediaID}}
	if _, err := s.Request(ctx, CmdSend, NewReqID(CmdSend), body); err != nil {
		return fmt.Errorf("%s %s: %w", CmdSend, typ, err)
	}
	return nil
}

// sendRecordedFile uploads and sends a recorded file send on the holder's
// connection. ok is false when body is an ordinary send. A failure is said
// in the chat, as the card that named the file is already shown.
func (c *Connection) sendRecordedFile(ctx context.Context, s Sender, body []byte) (ok bool, err error) {
	var f fileSend
	if json.Unmarshal(body, &f) != nil || f.Upload == nil {
		return false, nil
	}
	err = sendUploaded(ctx, s, f.ChatID, f.Upload.Type, f.Upload.Filename, f.Upload.Data)
	if err == nil {
		return true, nil
	}
	c.cfg.Log.Warn("long connection: a file of an answer was not sent", "file", f.Upload.Filename, "err", err)
	note := map[string]any{"chatid": f.ChatID, "msgtype": "markdown",
		"markdown": map[string]string{"content": fmt.Sprintf("📎 `%s` could not be sent: the upload to WeCom failed.", f.Upload.Filename)}}
	if _, nerr := s.Request(ctx, CmdSend, NewReqID(CmdSend), note); nerr != nil {
		c.cfg.Log.Warn("long connection: the note of a file not sent was not sent either", "err", nerr)
	}
	return true, err
}
