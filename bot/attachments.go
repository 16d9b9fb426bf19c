package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// MaxAttachmentBytes caps one attachment: the bytes wait in Redis until the
// turn runs, so a channel's own cap (wecom.media.max_bytes) may be lower,
// never higher. A larger one is not kept; its card says so.
const MaxAttachmentBytes = 20 << 20

// queuedAttachment is an Attachment as its queued message records it. Its
// bytes, unless it has a Problem, wait in the store under the message's
// stream and the attachment's index.
type queuedAttachment struct {
	Kind    AttachmentKind `json:"kind"`
	Name    string         `json:"name,omitempty"`
	MIME    string         `json:"mime,omitempty"`
	Problem string         `json:"problem,omitempty"`
}

// problemLine is the line the card shows for an attachment that is not
// part of the prompt.
func (a queuedAttachment) problemLine() string {
	return fmt.Sprintf("📎 %s was not attached: %s", a.label(), a.Problem)
}

// label names the attachment in a line: its name, else its kind.
func (a queuedAttachment) label() string {
	if a.Name == "" {
		return "a " + string(a.Kind)
	}
	return a.Name
}

// runnable reports whether m asks the agent anything: text, a quote, or an
// attachment that arrived.
func runnable(m Message, text string) bool {
	if text != "" || m.Quote != "" {
		return true
	}
	for _, a := range m.Attachments {
		if problemOf(a) == "" {
			return true
		}
	}
	return false
}

// problemOf is why a will not be attached: the channel's Problem, or that
// it is larger than MaxAttachmentBytes; "" when it will.
func problemOf(a Attachment) string {
	if a.Problem == "" && len(a.Data) > MaxAttachmentBytes {
		return fmt.Sprintf("it is too large (%.1f MiB; the limit is %d MiB)", float64(len(a.Data))/(1<<20), MaxAttachmentBytes>>20)
	}
	return a.Problem
}

// keepAttachments stores the bytes of m's attachments for whichever replica
// runs the turn and returns what the queued message records. A failure
// deletes what was stored: the delivery fails, and the platform's retry
// stores them again under its own stream.
func (in *intake) keepAttachments(ctx context.Context, log *slog.Logger, m Message) ([]queuedAttachment, error) {
	out := make([]queuedAttachment, len(m.Attachments))
	for i, a := range m.Attachments {
		q := queuedAttachment{Kind: a.Kind, Name: a.Name, MIME: a.MIME, Problem: problemOf(a)}
		if q.Problem == "" {
			if err := in.store.SaveAttachment(ctx, m.Conversation.Key(), m.Reply.Stream, i, a.Data); err != nil {
				in.dropAttachments(ctx, log, m.Conversation.Key(), m.Reply.Stream, i)
				return nil, fmt.Errorf("keep attachment %d of message %s: %w", i, m.ID, err)
			}
		}
		out[i] = q
	}
	return out, nil
}

// dropAttachments deletes the stored bytes of the first n attachments of the
// message on stream. The caller's deadline may be what failed it, so it gets
// a short one of its own; what it cannot delete expires within a day.
func (in *intake) dropAttachments(ctx context.Context, log *slog.Logger, conv, stream string, n int) {
	if n == 0 {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), retryAttemptTimeout)
	defer cancel()
	if err := in.store.DeleteAttachments(dctx, conv, stream, n); err != nil {
		log.Warn("delete the attachments of a message that was not queued; they expire within a day", "err", err)
	}
}

// problemLines are the problem lines of m's attachments, one a line.
func problemLines(m Message) string {
	var b strings.Builder
	for _, a := range m.Attachments {
		p := problemOf(a)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(queuedAttachment{Kind: a.Kind, Name: a.Name, Problem: p}.problemLine())
	}
	return b.String()
}
