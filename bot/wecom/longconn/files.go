package longconn

import (
	"context"

	"github.com/wecodex/wecodex/bot"
)

// What the card says of a file the long connection sent back.
const (
	textFileShown  = "shown with the answer"
	textFileSent   = "sent as a file message"
	textFileFailed = "not sent: the upload to WeCom failed"
)

var _ bot.FileSender = (*presenter)(nil)

// SendFiles puts up to 10 pictures (JPG/PNG, ≤ 10 MB) in the final frame's
// msg_item, and uploads every other file and sends it with aibot_send_msg
// as a file message.
func (p *presenter) SendFiles(ctx context.Context, files []bot.OutFile) []string {
	notes := make([]string, len(files))
	var items []MsgItem
	for i, f := range files {
		if f.Image && len(items) < MaxMsgItems && len(f.Data) <= MaxMsgItemBytes {
			items = append(items, ImageItem(f.Data))
			notes[i] = textFileShown
			continue
		}
		if _, err := p.c.conn.SendFile(ctx, p.r.ChatID, "file", f.Base(), f.Data); err != nil {
			p.log.Warn("file of the answer not sent", "file", f.Name, "err", err)
			notes[i] = textFileFailed
			continue
		}
		notes[i] = textFileSent
	}
	p.mu.Lock()
	p.items = items
	p.mu.Unlock()
	return notes
}

var _ bot.FileChannel = (*Channel)(nil)

// SendFile answers /file: it uploads f and sends it to the conversation, a
// picture as an image message, anything else as a file.
func (c *Channel) SendFile(ctx context.Context, r bot.Reply, f bot.OutFile) error {
	typ := "file"
	if f.Image && len(f.Data) <= MaxMsgItemBytes {
		typ = "image"
	}
	_, err := c.conn.SendFile(ctx, r.Conversation.ID, typ, f.Base(), f.Data)
	return err
}
