package bot

import (
	"strings"
	"unicode"
)

// ChatType says whether a message came from a one-to-one or a group chat,
// or from a self-built app (1:1 with the app, a conversation apart from the
// same user's 1:1 chat with the AI bot).
type ChatType string

const (
	ChatSingle ChatType = "single"
	ChatGroup  ChatType = "group"
	ChatApp    ChatType = "app"
)

// Message is one user message as the platform layer hands it to the engine.
type Message struct {
	// ID is the platform's message id (WeCom msgid); repeats of one ID are
	// the same message delivered again.
	ID string
	// Conversation is the conversation's key, ConversationKey(ChatType,
	// Chat) in a group and ConversationKey(ChatType, User) in a 1:1 chat:
	// the session, history, queue and workspace all hang on it.
	Conversation string
	// Chat is the group chat's id (WeCom chatid) in a group chat, "" in a
	// 1:1 chat; access.allow_chats names it.
	Chat string
	// User is the sender's user id.
	User string
	// Text is the message text with any @mention of the bot already removed
	// (see StripMention).
	Text string
	// ChatType is single or group.
	ChatType ChatType
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
}

// ConversationKey names a conversation by its chat type and the chat's id
// (the user's id in a 1:1 chat): "single:alice", "group:wrkChat1". The
// namespace keeps a group whose chat id equals a user id out of that user's
// session, history and workspace.
func ConversationKey(chat ChatType, id string) string { return string(chat) + ":" + id }

// knownChat reports whether c is one of the chat types above.
func knownChat(c ChatType) bool { return c == ChatSingle || c == ChatGroup || c == ChatApp }

// conversationOf is the key m's chat type and ids give.
func conversationOf(m Message) string {
	if m.ChatType == ChatGroup {
		return ConversationKey(ChatGroup, m.Chat)
	}
	return ConversationKey(m.ChatType, m.User)
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
