package app

import (
	"context"
	"errors"

	"github.com/wecodex/wecodex/bot"
)

// WeCom's caps on the app's temporary media (DOC 96484, §F.2): a picture
// 10 MB (JPG/PNG), a file 20 MB.
const (
	maxImageBytes = 10 << 20
	maxFileBytes  = 20 << 20
)

// What the card says of a file the app sent back.
const (
	textFileImage    = "sent as a picture after the answer"
	textFileSent     = "sent as a file message after the answer"
	textFileFailed   = "not sent: the upload to WeCom failed"
	textFileTooLarge = "not sent: it is over the 20 MB WeCom takes for a file"
)

// upload is a file uploaded for the chat, sent after the answer.
type upload struct {
	typ, mediaID string
}

var _ bot.FileSender = (*presenter)(nil)

// SendFiles uploads each file as temporary media now, so the card can say
// which failed; Finish sends them, after the answer's messages.
func (p *presenter) SendFiles(ctx context.Context, files []bot.OutFile) []string {
	notes := make([]string, len(files))
	var ups []upload
	for i, f := range files {
		typ, note := "file", textFileSent
		if f.Image && len(f.Data) <= maxImageBytes {
			typ, note = "image", textFileImage
		}
		if len(f.Data) > maxFileBytes {
			notes[i] = textFileTooLarge
			continue
		}
		id, err := p.c.api.uploadMedia(ctx, typ, f.Base(), f.Data)
		if err != nil {
			p.log.Warn("file of the answer not uploaded", "file", f.Name, "err", err)
			notes[i] = textFileFailed
			continue
		}
		ups = append(ups, upload{typ: typ, mediaID: id})
		notes[i] = note
	}
	p.uploads = ups
	return notes
}

// sendUploads sends the uploaded files, each within the send budget.
func (p *presenter) sendUploads(ctx context.Context) {
	for _, u := range p.uploads {
		if err := p.c.pace.wait(ctx, p.user); err != nil {
			p.log.Warn("file of the answer not sent", "err", err)
			return
		}
		if err := p.c.api.sendMedia(ctx, p.user, u.typ, u.mediaID); err != nil {
			p.log.Warn("file of the answer not sent", "type", u.typ, "err", err)
		}
	}
}

var _ bot.FileChannel = (*Channel)(nil)

// SendFile answers /file: it uploads f as temporary media and sends it to
// the conversation's user, a picture as an image message.
func (c *Channel) SendFile(ctx context.Context, r bot.Reply, f bot.OutFile) error {
	user := r.Conversation.ID // an app conversation is its user's
	typ := "file"
	if f.Image && len(f.Data) <= maxImageBytes {
		typ = "image"
	}
	if len(f.Data) > maxFileBytes {
		return errors.New(textFileTooLarge)
	}
	id, err := c.api.uploadMedia(ctx, typ, f.Base(), f.Data)
	if err != nil {
		return err
	}
	if err := c.pace.wait(ctx, user); err != nil {
		return err
	}
	return c.api.sendMedia(ctx, user, typ, id)
}
