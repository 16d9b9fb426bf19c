package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// A message with files is answered before it is received, because fetching
// them may take up to wecom.media.timeout (30 s) and WeCom gives a callback
// 5 s before it delivers it again. So the callback claims the message's reply
// stream first — a waiting "fetching" frame stored only into an empty stream,
// on a stream id every replica derives from the message alone — answers with
// it, and only then fetches and hands the message to intake on that same
// stream. A redelivery while the download runs finds the stream taken and is
// answered with its newest frame: it starts no second download and no second
// turn. Intake's own dedupe still guards the message once it is received.

// What the webhook says while a message's files are fetched, and when the
// message could not be taken after them.
const (
	textFetching   = "Fetching the attachments…"
	textNotTaken   = "Sorry, this message could not be taken after its attachments were fetched. Please send it again."
	takeRetryFirst = 200 * time.Millisecond
	// takeBudget bounds the retries of a store that fails after the files
	// came: the stream is shown for 6 minutes, the retries end well before.
	takeBudget = time.Minute
)

// mediaStream is the reply stream of a message with files: derived from the
// message with the bot's key, so a redelivery to any replica finds it and
// nobody without the key can guess it.
func (h *Handler) mediaStream(m bot.Message) string {
	mac := hmac.New(sha256.New, h.streamKey)
	fmt.Fprintf(mac, "%s\x00%s\x00%s", m.Conversation, m.User, m.ID)
	return "m" + hex.EncodeToString(mac.Sum(nil)[:12])
}

// receiveMedia answers a message with files at once and receives it after
// they are fetched (see above).
func (h *Handler) receiveMedia(w http.ResponseWriter, r *http.Request, q wecom.Query, cb wecom.Callback) {
	m := messageOf(cb)
	m.Reply.Stream = h.mediaStream(m)
	ctx, cancel := context.WithTimeout(r.Context(), receiveTimeout)
	defer cancel()
	f, held, err := h.streams.Hold(ctx, m, textFetching)
	if err != nil {
		h.fail(w, "hold the stream of a message with attachments", err, "msgid", cb.MsgID, "user", cb.UserID)
		return
	}
	if !held {
		h.reply(w, q, f)
		return // a redelivery: the first delivery fetches and receives
	}
	if err := h.recordFetch(ctx, m, cb.Media); err != nil {
		// Unrecorded, the message would be lost with this process, its card
		// saying "Fetching…": say at once that it was not taken.
		h.log.Error("aibot message with attachments not recorded; not taken", "msgid", cb.MsgID, "user", cb.UserID, "err", err)
		if err := h.streams.Settle(ctx, m, textNotRecorded); err != nil {
			h.log.Error("aibot message with attachments: cannot say it was not taken", "msgid", cb.MsgID, "err", err)
		}
		h.reply(w, q, Frame{StreamID: m.Reply.Stream, Content: textNotRecorded, Finish: true})
		return
	}
	h.reply(w, q, f)
	h.background.Add(1)
	go func() {
		defer h.background.Done()
		h.fetchAndReceive(m, cb.Media)
	}()
}

// fetchAndReceive fetches m's files and hands m to intake, retrying a store
// that fails: WeCom was answered already and will not deliver it again.
func (h *Handler) fetchAndReceive(m bot.Message, refs []wecom.MediaRef) {
	stopClaim := h.keepClaim(m)
	defer stopClaim()
	if h.receiveFetched(m, refs) {
		h.forgetFetch(m)
	}
}

// receiveFetched fetches m's files and hands m to intake, or finishes its
// card; done is false when the process stopped meanwhile or the card could
// not be finished, so the record is kept for another process.
func (h *Handler) receiveFetched(m bot.Message, refs []wecom.MediaRef) (done bool) {
	ctx := h.life
	m.Attachments = h.fetcher.Fetch(ctx, m.ID, refs)
	if ctx.Err() != nil && h.fetchLog != nil {
		// The process stops (or was killed) mid-download: the record's
		// claim lapses and another process, or this one started again,
		// fetches the files again (fetchlog.go).
		return false
	}
	log := h.log.With("msgid", m.ID, "user", m.User, "stream", m.Reply.Stream)
	for _, a := range m.Attachments {
		if a.Problem != "" {
			log.Info("attachment missing", "kind", a.Kind, "problem", a.Problem)
		}
	}
	wait := takeRetryFirst
	deadline := time.Now().Add(takeBudget)
	for {
		rctx, cancel := context.WithTimeout(ctx, receiveTimeout)
		_, err := h.streams.Receive(rctx, m)
		cancel()
		if err == nil {
			return true
		}
		if ctx.Err() != nil || time.Now().Add(wait).After(deadline) {
			log.Error("aibot message with attachments not taken", "err", err)
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), receiveTimeout)
			defer cancel()
			if err := h.streams.Settle(sctx, m, textNotTaken); err != nil {
				log.Error("aibot message with attachments: cannot say it was not taken", "err", err)
				return false // its claim lapses and another process tries
			}
			return true
		}
		log.Warn("aibot message with attachments not taken yet; retrying", "err", err, "in", wait)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// Close stops the fetches and receives still running for messages with
// files and waits for them; call it when the server stops taking requests.
func (h *Handler) Close() {
	h.stop()
	h.background.Wait()
}
