package app

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// messageOf is the engine's view of a message. Media are fetched now
// (media/get), since a turn may start on another replica; a fetch that fails
// becomes the attachment's Problem and the message still runs.
func (c *Channel) messageOf(ctx context.Context, cb Callback) bot.Message {
	m := bot.Message{ID: cb.MsgID, Conversation: wecom.AppChat(cb.User), User: cb.User, Channel: Name}
	switch cb.MsgType {
	case "text":
		m.Text = cb.Content
	case "voice":
		if cb.Recognition != "" {
			m.Text = cb.Recognition // WeCom's transcript
			break
		}
		m.Attachments = []bot.Attachment{c.attachment(ctx, bot.AttachFile, cb.MediaID, "", "voice-"+cb.MsgID+".amr")}
	case "image":
		m.Attachments = []bot.Attachment{c.attachment(ctx, bot.AttachImage, cb.MediaID, "", "image-"+cb.MsgID)}
	case "file":
		m.Attachments = []bot.Attachment{c.attachment(ctx, bot.AttachFile, cb.MediaID, cb.FileName, "file-"+cb.MsgID)}
	}
	return m
}

// attachment fetches one file, named as WeCom names it (made safe), or
// after the message (fallback) with an extension for what it holds.
func (c *Channel) attachment(ctx context.Context, kind bot.AttachmentKind, mediaID, name, fallback string) bot.Attachment {
	a := bot.Attachment{Kind: kind, Name: wecom.FileName(name, fallback, "")}
	data, err := c.api.fetchMedia(ctx, mediaID, c.media)
	switch {
	case errors.Is(err, errMediaTooLarge):
		a.Problem = "the file is larger than " + sizeText(c.media.MaxBytes)
		return a
	case err != nil:
		c.log.Warn("fetch media", "err", err)
		a.Problem = "the file could not be fetched from WeCom"
		return a
	}
	a.Data, a.MIME = data, http.DetectContentType(data)
	a.Name = wecom.FileName(name, fallback, a.MIME)
	return a
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
