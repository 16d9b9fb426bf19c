package bot

import "slices"

// Access says who may drive the agent (access.allow_users, access.allow_chats,
// access.admins).
//
// The lists are closed by default: with every list empty nobody may use the
// bot, because the agent can run commands on this machine. "*" in a list
// allows everyone explicitly. An admin is allowed everywhere. In a group chat
// either the chat being allowed or the sender being allowed is enough.
type Access struct {
	AllowUsers []string
	AllowChats []string
	Admins     []string
}

// Allowed reports whether m's sender may drive the agent in m's conversation.
func (a Access) Allowed(m Message) bool {
	if a.IsAdmin(m.User) || listed(a.AllowUsers, m.User) {
		return true
	}
	return m.Conversation.Group && listed(a.AllowChats, m.Conversation.ID)
}

// Allowed reports whether m's sender may drive the agent in m's
// conversation (access.*). Intake refuses the others; a channel asks first
// when taking a message costs something, such as fetching its files.
func (e *Engine) Allowed(m Message) bool { return e.cfg.Access.Allowed(m) }

// IsAdmin reports whether user is an admin.
func (a Access) IsAdmin(user string) bool { return listed(a.Admins, user) }

// Closed reports whether nobody at all may use the bot.
func (a Access) Closed() bool {
	return len(a.AllowUsers) == 0 && len(a.AllowChats) == 0 && len(a.Admins) == 0
}

func listed(list []string, id string) bool {
	return id != "" && (slices.Contains(list, id) || slices.Contains(list, "*"))
}
