package bot

import (
	"fmt"
	"log/slog"
	"strings"
)

// Conversation names one conversation a channel holds with its users: the
// session, history, queue and workspace all hang on it. A channel makes it
// from its platform's ids (package wecom has WeCom's); only bot turns it into
// the string the store keys it by (Key).
type Conversation struct {
	// Kind is the space the ID lives in: conversations of two kinds never
	// share anything, even when their IDs are equal. WeCom's kinds keep a
	// group whose chat id equals a user id out of that user's session; a
	// channel of another platform brings kinds of its own. It must not
	// contain ':'.
	Kind string
	// ID is the platform's id of the conversation within Kind: the user in
	// a 1:1 chat, the chat in a group.
	ID string
	// Group is set when many users share the conversation: the chat's ID
	// may then be allowed (access.allow_chats), and a reply belongs to the
	// whole group rather than to its sender.
	Group bool
	// Member is set in a group whose project gives each member a session
	// of their own (group_sessions: per_user): the member's user id. The
	// group's chat (ID) still decides access and the project; the
	// session, queue and worktree are the member's alone. It must not
	// contain ':'.
	Member string
}

// Key is the conversation's key in the store and in logs: "kind:id"
// ("single:alice", "group:wrkChat1"). The format is the one Redis state
// was written with before the conversation was typed; it must not change,
// or the sessions, queues and workspaces recorded under it are lost. A
// member's own conversation in a group is "kind/member:id"
// ("group/alice:wrkChat1"): no kind contains '/' and no member ':', so it
// is the key of no other conversation.
func (c Conversation) Key() string {
	if c.Member != "" {
		return c.Kind + "/" + c.Member + ":" + c.ID
	}
	return c.Kind + ":" + c.ID
}

// prefix is what Key puts before the ID.
func (c Conversation) prefix() string {
	k := c.Key()
	return k[:len(k)-len(c.ID)]
}

// String is the key, for logs.
func (c Conversation) String() string { return c.Key() }

// LogValue logs the key, whatever the handler.
func (c Conversation) LogValue() slog.Value { return slog.StringValue(c.Key()) }

// shared reports whether many users talk in c's one session: the agent
// then needs to be told who says what.
func (c Conversation) shared() bool { return c.Group && c.Member == "" }

// valid reports why c cannot name a conversation, or nil.
func (c Conversation) valid() error {
	switch {
	case c.Kind == "" || c.ID == "":
		return fmt.Errorf("conversation %q has no kind or no id", c.Key())
	case strings.ContainsAny(c.Kind, ":/"):
		// "a:b"+"c" would be the key of "a"+"b:c"; "a/b" the member b's of a.
		return fmt.Errorf("conversation kind %q contains ':' or '/'", c.Kind)
	case strings.Contains(c.Member, ":"):
		return fmt.Errorf("conversation member %q contains ':'", c.Member)
	case c.Member != "" && !c.Group:
		return fmt.Errorf("conversation %q has a member but is no group", c.Key())
	}
	return nil
}

// conversationOf is the conversation a queued message recorded: its kind
// ("chat"), its key ("conv") and whether it is a group. It is the one place
// a key is read back. A key without its kind's prefix was written before
// keys were namespaced (see namespaced); its ID is the bare key. A message
// queued before Group was recorded came from WeCom, whose only group kind
// was "group".
func conversationOf(kind, member, key string, group *bool) (c Conversation, namespaced bool) {
	c = Conversation{Kind: kind, Member: member}
	id, namespaced := strings.CutPrefix(key, c.prefix())
	if !namespaced {
		id = key
	}
	c.ID = id
	if group != nil {
		c.Group = *group
	} else {
		c.Group = kind == legacyGroupKind
	}
	return c, namespaced && kind != ""
}

// legacyGroupKind is the kind of WeCom's group chats, the only group kind
// when messages were queued without their Group.
const legacyGroupKind = "group"
