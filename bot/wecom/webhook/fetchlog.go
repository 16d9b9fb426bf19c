package webhook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wecodex/wecodex/bot"
	"github.com/wecodex/wecodex/bot/wecom"
)

// A message with files is answered before its files are fetched, and WeCom
// does not deliver an answered message again: a process that dies during
// the download would lose it, its card showing "Fetching…" until the frame
// expires. So the message is recorded in the shared store before WeCom is
// answered, claimed by the process fetching it, which renews the claim
// while it works and forgets the record once the message is received.
// Every process looks for records whose claim lapsed and takes them over:
// it fetches the files again while WeCom's links to them live (5 minutes
// from the message), and otherwise finishes the card saying the message
// and its files were lost. Intake's dedupe makes a second receive of a
// message that was received just before its fetcher died harmless.

// FetchLog keeps the messages whose files are being fetched; the webhook
// channel's Streams implements it over the store. An endpoint whose
// Streams does not loses such a message with its process, as it says.
type FetchLog interface {
	// RecordFetch records a stream's message, claimed by claimer for
	// claim, unless it is recorded already (recorded false).
	RecordFetch(ctx context.Context, streamID string, msg []byte, claimer string, claim time.Duration) (recorded bool, err error)
	// RenewFetch extends claimer's claim; held is false once it lapsed.
	RenewFetch(ctx context.Context, streamID, claimer string, claim time.Duration) (held bool, err error)
	// ForgetFetch drops the record once the message was received or its
	// card finished.
	ForgetFetch(ctx context.Context, streamID string) error
	// TakeLapsedFetches claims for claimer every record whose claim
	// lapsed: stream id → message.
	TakeLapsedFetches(ctx context.Context, claimer string, claim time.Duration) (map[string][]byte, error)
}

// DefaultFetchClaim is HandlerOptions.FetchClaim's default: a process that
// died during a download has its message taken over this soon after.
const DefaultFetchClaim = 15 * time.Second

// mediaLinkLife is how long WeCom's links to a message's files work.
const mediaLinkLife = 5 * time.Minute

// What the card says when a message with files cannot be kept or was lost.
const (
	textNotRecorded = "Sorry, this message could not be taken: the server could not record it before fetching its attachments. Please send it again."
	textFilesLost   = "Sorry, this message was lost: the server fetching its attachments stopped, and WeCom's links to them have expired since. Please send it again."
)

// pendingFetch is a message with files as it is recorded.
type pendingFetch struct {
	Message bot.Message      `json:"message"`
	Refs    []wecom.MediaRef `json:"refs"`
	// Since (unix ms) is when WeCom delivered it: its links live
	// mediaLinkLife from then.
	Since int64 `json:"since"`
}

// newClaimer names this process in its claims.
func newClaimer() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand never fails on the platforms Go supports
	return hex.EncodeToString(b)
}

// recordFetch records m, whose files are refs, before WeCom is answered.
// A redelivery's record is kept as the first delivery made it.
func (h *Handler) recordFetch(ctx context.Context, m bot.Message, refs []wecom.MediaRef) error {
	if h.fetchLog == nil {
		return nil
	}
	b, err := json.Marshal(pendingFetch{Message: m, Refs: refs, Since: h.now().UnixMilli()})
	if err != nil {
		return fmt.Errorf("encode the message: %w", err)
	}
	_, err = h.fetchLog.RecordFetch(ctx, m.Reply.Stream, b, h.claimer, h.claim)
	return err
}

// keepClaim renews the claim on m's record until stop is called.
func (h *Handler) keepClaim(m bot.Message) (stop func()) {
	if h.fetchLog == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(h.life)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(h.claim / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				held, err := h.fetchLog.RenewFetch(ctx, m.Reply.Stream, h.claimer, h.claim)
				if err == nil && !held {
					h.log.Warn("the claim on a message being fetched lapsed; another server may fetch it too", "msgid", m.ID, "stream", m.Reply.Stream)
				}
			}
		}
	}()
	return func() { cancel(); <-done }
}

// forgetFetch drops m's record once m was received or its card finished.
func (h *Handler) forgetFetch(m bot.Message) {
	if h.fetchLog == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(h.life), receiveTimeout)
	defer cancel()
	if err := h.fetchLog.ForgetFetch(ctx, m.Reply.Stream); err != nil {
		// Its claim lapses and another process receives it again, which
		// intake's dedupe drops.
		h.log.Warn("forget a fetched message", "msgid", m.ID, "err", err)
	}
}

// takeOverFetches takes over, every third of the claim, the messages whose
// fetcher died, until the handler closes.
func (h *Handler) takeOverFetches() {
	t := time.NewTicker(h.claim / 3)
	defer t.Stop()
	for {
		select {
		case <-h.life.Done():
			return
		case <-t.C:
			h.takeOverOnce()
		}
	}
}

func (h *Handler) takeOverOnce() {
	ctx, cancel := context.WithTimeout(h.life, receiveTimeout)
	defer cancel()
	lapsed, err := h.fetchLog.TakeLapsedFetches(ctx, h.claimer, h.claim)
	if err != nil && h.life.Err() == nil {
		h.log.Warn("look for messages whose fetch stopped", "err", err)
	}
	for stream, b := range lapsed {
		var p pendingFetch
		if err := json.Unmarshal(b, &p); err != nil || p.Message.Reply.Stream != stream {
			h.log.Error("a recorded message with files cannot be read; dropped", "stream", stream, "err", err)
			_ = h.fetchLog.ForgetFetch(ctx, stream)
			continue
		}
		h.background.Add(1)
		go func() {
			defer h.background.Done()
			h.takeOver(p)
		}()
	}
}

// takeOver fetches and receives a message whose fetcher died, or finishes
// its card when WeCom's links to its files expired.
func (h *Handler) takeOver(p pendingFetch) {
	m := p.Message
	log := h.log.With("msgid", m.ID, "user", m.User, "stream", m.Reply.Stream)
	if h.now().Sub(time.UnixMilli(p.Since)) >= mediaLinkLife {
		log.Warn("a message whose fetch stopped is lost: its links expired")
		ctx, cancel := context.WithTimeout(context.WithoutCancel(h.life), receiveTimeout)
		defer cancel()
		if err := h.streams.Settle(ctx, m, textFilesLost); err != nil {
			log.Error("cannot say a message with attachments was lost", "err", err)
			return // its claim lapses; the next look tries again
		}
		h.forgetFetch(m)
		return
	}
	log.Info("took over a message whose fetch stopped; fetching its attachments again")
	h.fetchAndReceive(m, p.Refs)
}
