package bot

import (
	"strings"
	"unicode"

	"github.com/wecodex/wecodex/acpbridge"
)

// Message is one user message as the platform layer hands it to the engine.
type Message struct {
	// ID is the platform's message id (WeCom msgid); repeats of one ID are
	// the same message delivered again.
	ID string
	// Conversation is where the message was said: the session, history,
	// queue and workspace all hang on it.
	Conversation Conversation
	// User is the sender's user id.
	User string
	// UserName is the sender's display name when the platform gives one
	// ("" otherwise: WeCom's callbacks name only from.userid). In a group's
	// shared session the prompt names the sender by it, else by User.
	UserName string
	// Corp is the sender's company (WeCom from.corpid) when the platform
	// names one: it does for people of another company, never for a bot's
	// own members. Access refuses another company's unless AllowExternal.
	Corp string
	// Text is the message text with any @mention of the bot already removed
	// (see StripMention).
	Text string
	// Quote is the text of the message this one quotes, for the agent as
	// context of the prompt; "" when it quotes nothing.
	Quote string
	// Attachments are the files (pictures, files, videos) the message
	// brought, already fetched by the channel.
	Attachments []Attachment
	// Channel is the Name of the channel the message came on; its turn is
	// presented there.
	Channel string
	// Reply is the handle the channel answers on. Intake assigns its Stream;
	// the rest is the channel's and is passed back to it untouched.
	Reply ReplyTo

	// project is a pushed turn's own project (Pushed.Project); no channel
	// sets it.
	project string
	// action is set by intake for a session control that runs as a turn
	// (/review, /compact, /undo: controlcmd.go).
	action string
	// rerunIfLost is Pushed.RerunIfLost; rerun marks the second run of a
	// lost turn, which its sender's backlog does not count.
	rerunIfLost, rerun bool
	// pushed marks a schedule's or trigger's turn (Engine.Push).
	pushed bool
	// mode is a pushed turn's permission mode (Pushed.Mode); a chat
	// message has none and runs in its conversation's.
	mode acpbridge.Mode
}

// StripMention removes the leading "@name" mentions a group chat puts in front
// of a message addressed to the bot ("@Codex /stop" → "/stop"), and the
// surrounding space. Mentions of other people inside the text are kept. When
// botName is empty any leading @word is treated as the bot's mention (WeCom
// does not tell the bot its display name): a name with spaces then loses only
// its first word, and the rest reads as text, never as a command, which fails
// safe. WeCom's full-width ＠ and the U+2005 space after a mention count too.
func StripMention(text, botName string) string {
	s := strings.TrimSpace(text)
	for {
		rest, ok := strings.CutPrefix(s, "@")
		if !ok {
			rest, ok = strings.CutPrefix(s, "＠")
		}
		if !ok {
			break
		}
		if botName != "" {
			if !strings.HasPrefix(rest, botName) {
				break
			}
			after := rest[len(botName):]
			if after != "" && !startsWithSpace(after) {
				break
			}
			s = strings.TrimSpace(after)
			continue
		}
		i := strings.IndexFunc(rest, unicode.IsSpace)
		if i < 0 {
			return ""
		}
		s = strings.TrimSpace(rest[i:])
	}
	return s
}

func startsWithSpace(s string) bool {
	for _, r := range s {
		return unicode.IsSpace(r)
	}
	return false
}
