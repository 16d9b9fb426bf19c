package wecom

import "github.com/wecodex/wecodex/bot"

// WeCom's conversation kinds. Each is a space of its own, so a group whose
// chatid equals a userid never shares that user's session, history or
// workspace, and a user's chat with the self-built app is apart from their
// 1:1 chat with the AI bot. The names are the keys' prefixes in Redis
// ("single:<userid>"): they must not change.
const (
	KindSingle = "single" // a 1:1 chat with the AI bot, by userid
	KindGroup  = "group"  // a group chat the AI bot is in, by chatid
	KindApp    = "app"    // a 1:1 chat with the self-built app, by userid
)

// SingleChat is the AI bot's 1:1 chat with userID.
func SingleChat(userID string) bot.Conversation {
	return bot.Conversation{Kind: KindSingle, ID: userID}
}

// GroupChat is the group chat chatID.
func GroupChat(chatID string) bot.Conversation {
	return bot.Conversation{Kind: KindGroup, ID: chatID, Group: true}
}

// AppChat is the self-built app's 1:1 chat with userID.
func AppChat(userID string) bot.Conversation {
	return bot.Conversation{Kind: KindApp, ID: userID}
}

// ChatOf is an AI-bot conversation by its chattype: the group chatID in a
// group, else the 1:1 chat with userID.
func ChatOf(chat ChatType, chatID, userID string) bot.Conversation {
	if chat == ChatGroup {
		return GroupChat(chatID)
	}
	return SingleChat(userID)
}
