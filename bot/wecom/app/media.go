package app

import (
	"context"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// maxMediaBytes caps an inbound file: WeCom's own cap on app media (20 MB
// for files, DOC 96484).
const maxMediaBytes = 20 << 20

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
		m.Attachments = []bot.Attachment{c.attachment(ctx, bot.AttachFile, cb.MediaID, "voice-"+cb.MsgID+".amr")}
	case "image":
		m.Attachments = []bot.Attachment{c.attachment(ctx, bot.AttachImage, cb.MediaID, "image-"+cb.MsgID)}
	case "file":
		m.Attachments = []bot.Attachment{c.attachment(ctx, bot.AttachFile, cb.MediaID, safeName(cb.FileName, "file-"+cb.MsgID))}
	}
	return m
}

func (c *Channel) attachment(ctx context.Context, kind bot.AttachmentKind, mediaID, name string) bot.Attachment {
	a := bot.Attachment{Kind: kind, Name: name}
	data, err := c.api.fetchMedia(ctx, mediaID)
	switch {
	case err != nil:
		c.log.Warn("fetch media", "err", err)
		a.Problem = "the file could not be fetched from WeCom"
		return a
	case len(data) > maxMediaBytes:
		a.Problem = "the file is larger than 20 MB"
		return a
	}
	a.Data, a.MIME = data, http.DetectContentType(data)
	if kind == bot.AttachImage && filepath.Ext(name) == "" {
		if exts, _ := mime.ExtensionsByType(a.MIME); len(exts) > 0 {
			a.Name += exts[len(exts)-1]
		}
	}
	return a
}

// safeName is name as one path element, or fallback when nothing is left.
func safeName(name, fallback string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" || name == ".." || strings.TrimSpace(name) == "" {
		return fallback
	}
	return name
}
