package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// A message with a file is answered at once and received once the file is
// in, as the AI bot's webhook does: media/get may take up to
// wecom.media.timeout, and WeCom delivers a callback again after 5 s. The
// file is fetched only for a sender intake will take (access) and only by
// the first delivery (a claim in the shared store, so a redelivery to
// another replica fetches nothing either); intake's own dedupe guards the
// message after.

// Bounds of the background receive of a message with a file.
const (
	// fetchClaimTTL keeps a message's fetch claimed past WeCom's
	// redeliveries (three, seconds apart) and past the fetch itself.
	fetchClaimTTL  = 10 * time.Minute
	takeRetryFirst = 200 * time.Millisecond
	takeAttempts   = 6
)

// mediaRef is the one file an app message names: its MediaId, the name
// WeCom gives it ("" for none) and the name after the message otherwise.
type mediaRef struct {
	kind           bot.AttachmentKind
	mediaID        string
	name, fallback string
}

// messageOf is the engine's view of a message, and the file it names
// (none: ok false), which fetchAttachment turns into its attachment.
func messageOf(cb Callback) (bot.Message, mediaRef, bool) {
	m := bot.Message{ID: cb.MsgID, Conversation: wecom.AppChat(cb.User), User: cb.User, Channel: Name}
	switch cb.MsgType {
	case "text":
		m.Text = cb.Content
	case "voice":
		if cb.Recognition != "" {
			m.Text = cb.Recognition // WeCom's transcript
			break
		}
		return m, mediaRef{bot.AttachFile, cb.MediaID, "", "voice-" + cb.MsgID + ".amr"}, true
	case "image":
		return m, mediaRef{bot.AttachImage, cb.MediaID, "", "image-" + cb.MsgID}, true
	case "file":
		return m, mediaRef{bot.AttachFile, cb.MediaID, cb.FileName, "file-" + cb.MsgID}, true
	}
	return m, mediaRef{}, false
}

// fetchAttachment fetches ref (media/get), named as WeCom names it (made
// safe), or after the message with an extension for what it holds. A fetch
// that fails becomes the attachment's Problem and the message still runs.
func (c *Channel) fetchAttachment(ctx context.Context, ref mediaRef) bot.Attachment {
	a := bot.Attachment{Kind: ref.kind, Name: wecom.FileName(ref.name, ref.fallback, "")}
	data, err := c.api.fetchMedia(ctx, ref.mediaID, c.media)
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
	a.Name = wecom.FileName(ref.name, ref.fallback, a.MIME)
	return a
}

// receiveWithFile takes a message with a file off the callback: it claims
// the fetch, and the first claimant fetches and receives in the
// background. It returns whether the fetch was this delivery's.
func (c *Channel) receiveWithFile(ctx context.Context, in Intake, m bot.Message, ref mediaRef) (bool, error) {
	claimed, err := c.store.ClaimCacheFill(ctx, "app-media:"+m.User+"\x00"+m.ID, c.replica, fetchClaimTTL)
	if err != nil {
		return false, fmt.Errorf("claim the fetch of message %s: %w", m.ID, err)
	}
	if !claimed {
		c.log.Info("redelivery of a message whose file is being fetched dropped", "msgid", m.ID)
		return false, nil
	}
	c.background.Add(1)
	go func() {
		defer c.background.Done()
		c.fetchAndReceive(in, m, ref)
	}()
	return true, nil
}

func (c *Channel) fetchAndReceive(in Intake, m bot.Message, ref mediaRef) {
	ctx := c.life
	log := c.log.With("msgid", m.ID, "user", m.User)
	m.Attachments = []bot.Attachment{c.fetchAttachment(ctx, ref)}
	if p := m.Attachments[0].Problem; p != "" {
		log.Info("attachment missing", "kind", ref.kind, "problem", p)
	}
	wait := takeRetryFirst
	for try := 1; ; try++ {
		rctx, cancel := context.WithTimeout(ctx, receiveTimeout)
		_, err := in.Receive(rctx, m)
		cancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil || try == takeAttempts {
			log.Error("app message with a file not taken", "err", err)
			return
		}
		log.Warn("app message with a file not taken yet; retrying", "err", err, "in", wait)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// Close stops the fetches still running for messages with files and waits
// for them; call it when the server stops taking requests.
func (c *Channel) Close() {
	c.stop()
	c.background.Wait()
}

func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
