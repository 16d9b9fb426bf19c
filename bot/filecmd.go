package bot

import (
	"context"
	"fmt"
	"strings"
)

// FileChannel is a Channel that can send a file to a conversation outside a
// turn, for /file <name>. A channel that cannot (the webhook) is told apart
// by not implementing it, and /file says so.
type FileChannel interface {
	// SendFile sends f on r's conversation; the error says why it could not.
	SendFile(ctx context.Context, r Reply, f OutFile) error
}

const (
	textFileUsage     = "Send `/file <name>` with the name of a file in this conversation's workspace, as the answer's list of files shows it."
	textFileNoSpace   = "This conversation has no workspace yet: nothing to send."
	textFileCannot    = "📎 `%s` is in the workspace, but this channel cannot send files: WeCom's webhook bot shows only pictures, with an answer. Ask the agent to show what you need of it as text; on the long connection or the self-built app, wecodex sends files."
	textFileSent      = "📎 Sent `%s`."
	textFileSendFail  = "📎 `%s` could not be sent: the upload to WeCom failed. Try again in a moment."
	textFileNotSentAs = "📎 `%s` %s."
)

// file answers /file <name>: it sends that file of the conversation's
// workspace, read within the same rules and limits as an answer's files.
func (in *intake) file(ctx context.Context, ch Channel, m Message) (string, error) {
	_, name, _ := strings.Cut(strings.TrimSpace(m.Text), " ")
	name = strings.TrimSpace(name)
	if name == "" {
		return textFileUsage, nil
	}
	conv := m.Conversation.Key()
	_, cwd, err := in.store.Conversation(ctx, conv)
	if err != nil {
		return "", fmt.Errorf("/file in %s: %w", conv, err)
	}
	if cwd == "" {
		return textFileNoSpace, nil
	}
	files := PickFiles("[file](<"+name+">)", cwd, in.cfg.Files)
	if len(files) != 1 {
		return textFileUsage, nil
	}
	f := files[0]
	shown := strings.ReplaceAll(f.Name, "`", "'")
	if f.Refused != "" {
		return fmt.Sprintf(textFileNotSentAs, shown, f.Refused), nil
	}
	fc, ok := ch.(FileChannel)
	if !ok {
		return fmt.Sprintf(textFileCannot, shown), nil
	}
	if err := fc.SendFile(ctx, replyTo(m, ReplyFinished, ""), f); err != nil {
		in.log.Warn("/file not sent", "conv", conv, "err", err)
		return fmt.Sprintf(textFileSendFail, shown), nil
	}
	return fmt.Sprintf(textFileSent, shown), nil
}
