package bot

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/wecodex/wecodex/acpbridge"
)

// turnPrompt is the prompt of q's turn in workspace: the attachments'
// bytes are written into it (pictures become the prompt's images, files and
// videos are named in its text), and each attachment that could not be
// attached is one line on the card.
func (r *turnRunner) turnPrompt(ctx context.Context, log *slog.Logger, q queued, workspace string, sink acpbridge.Sink) acpbridge.Prompt {
	var p acpbridge.Prompt
	var files, missing []string
	for i, a := range q.Attachments {
		if a.Problem == "" {
			a.Problem = r.materialize(ctx, log, q, workspace, i, a, &p, &files)
		}
		if a.Problem != "" {
			missing = append(missing, a.label()+": "+a.Problem)
			sink.Notice(acpbridge.Notice{Level: acpbridge.NoticeWarning, Text: a.problemLine()})
		}
	}
	p.Text = promptText(senderOf(q), q.Text, q.Quote, files, missing)
	return p
}

// senderOf is who the prompt names as the asker: in a session a whole
// group shares, the agent reads one thread with many people in it, and
// only the prompt can tell it who is asking now. Elsewhere the sender is
// always the same person, and the prompt names nobody ("").
func senderOf(q queued) string {
	if !q.conversation().shared() {
		return ""
	}
	if q.UserName == "" || q.UserName == q.User {
		return q.User
	}
	return q.UserName + " (" + q.User + ")"
}

// materialize writes attachment i of q into the workspace and adds it to
// the prompt; it returns why it could not, or "".
func (r *turnRunner) materialize(ctx context.Context, log *slog.Logger, q queued, workspace string, i int, a queuedAttachment, p *acpbridge.Prompt, files *[]string) string {
	var data []byte
	var found bool
	err := RetryStore(ctx, func(ctx context.Context) error {
		var err error
		data, found, err = r.store.Attachment(ctx, q.Conversation, q.StreamID, i)
		return err
	}, nil)
	switch {
	case err != nil:
		log.Warn("read attachment", "index", i, "err", err)
		return "it could not be read from the bot's store"
	case !found:
		log.Warn("attachment is gone from the store", "index", i)
		return "it is no longer available"
	}
	name := acpbridge.AttachmentName(a.Name, i, a.MIME)
	rel, err := acpbridge.SaveAttachment(workspace, name, data)
	if err != nil {
		log.Warn("save attachment in the workspace", "index", i, "err", err)
		return "it could not be saved in the workspace"
	}
	if a.Kind == AttachImage {
		p.Images = append(p.Images, acpbridge.Image{Path: filepath.Join(workspace, rel), MIME: imageMIME(a.MIME, data)})
		return ""
	}
	*files = append(*files, rel)
	return ""
}

// promptText is what the agent reads for a message, each part only when
// present, parts separated by a blank line:
//
//	From: Dana (dana)
//
//	Quoted message:
//	> the quoted text, every line marked
//
//	the user's text
//
//	Attached files (paths relative to the working directory):
//	- attachments/build.log
//
//	Not attached:
//	- big.zip: it is too large (25.0 MiB; the limit is 20 MiB)
//
// A quote with no text of the user's is the prompt itself: a quote-only
// @mention asks about the quoted message. Pictures are not listed: they
// are the prompt's images.
func promptText(sender, text, quote string, files, missing []string) string {
	var parts []string
	if sender != "" {
		parts = append(parts, "From: "+sender)
	}
	switch {
	case quote != "" && text == "":
		parts = append(parts, quote)
	case quote != "":
		parts = append(parts, "Quoted message:\n> "+strings.ReplaceAll(quote, "\n", "\n> "), text)
	case text != "":
		parts = append(parts, text)
	}
	if len(files) > 0 {
		parts = append(parts, "Attached files (paths relative to the working directory):\n- "+strings.Join(files, "\n- "))
	}
	if len(missing) > 0 {
		parts = append(parts, "Not attached:\n- "+strings.Join(missing, "\n- "))
	}
	return strings.Join(parts, "\n\n")
}

// forgetAttachments deletes the stored bytes of q's attachments once its
// turn is over (finished, failed, or lost with its replica); what a failed
// delete leaves expires within a day.
func (r *turnRunner) forgetAttachments(ctx context.Context, log *slog.Logger, q queued) {
	if len(q.Attachments) == 0 {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), retryAttemptTimeout)
	defer cancel()
	if err := r.store.DeleteAttachments(dctx, q.Conversation, q.StreamID, len(q.Attachments)); err != nil {
		log.Warn("delete the attachments of a finished turn; they expire within a day", "err", err)
	}
}

// imageMIME is a picture's media type: the channel's, else sniffed.
func imageMIME(declared string, data []byte) string {
	if strings.HasPrefix(declared, "image/") {
		return declared
	}
	return http.DetectContentType(data)
}
