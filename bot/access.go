package bot

import (
	"slices"
	"strings"
)

// Access says who may drive the agent (access.allow_users, access.allow_chats,
// access.admins, access.allow_external).
//
// The lists are closed by default: with every list empty nobody may use the
// bot, because the agent can run commands on this machine. "*" in the allow
// lists allows everyone explicitly; it never makes anyone an admin. An admin
// is allowed everywhere. In a group chat either the chat being allowed or
// the sender being allowed is enough. An external contact (External) is
// refused, whatever the lists say, unless AllowExternal.
type Access struct {
	AllowUsers []string
	AllowChats []string
	Admins     []string
	// AllowExternal lets external contacts in (access.allow_external).
	AllowExternal bool
	// Corp is the bot's own company id (wecom.app.corp_id) when known: a
	// message naming it is not external. "" counts every named company as
	// another.
	Corp string
	// Approvers (access.approvers) decide requests to leave the sandbox;
	// empty means the admins. The entry ApproverRequester lets the user who
	// asked decide too.
	Approvers []string
}

// ApproverRequester, in Access.Approvers, lets the user who asked decide
// their own request (but not /approve always, which is an approver's).
const ApproverRequester = "requester"

// Allowed reports whether m's sender may drive the agent in m's conversation.
func (a Access) Allowed(m Message) bool {
	if a.External(m) && !a.AllowExternal {
		return false
	}
	if a.IsAdmin(m.User) || listed(a.AllowUsers, m.User) {
		return true
	}
	return m.Conversation.Group && listed(a.AllowChats, m.Conversation.ID)
}

// External reports whether m comes from someone outside the bot's company:
// the message names another company, or the sender's id is an external
// userid.
func (a Access) External(m Message) bool {
	return (m.Corp != "" && m.Corp != a.Corp) || ExternalUserID(m.User)
}

// ExternalUserID reports whether id has the shape of a WeCom external
// userid: 32 characters starting with "wm" (an external contact) or "wo" (a
// WeChat user), which WeCom gives people outside the company. A member's
// userid is the admin's choice, and one of exactly that shape would be a
// strange choice.
func ExternalUserID(id string) bool {
	if len(id) != 32 || !(strings.HasPrefix(id, "wm") || strings.HasPrefix(id, "wo")) {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Allowed reports whether m's sender may drive the agent in m's
// conversation (access.*). Intake refuses the others; a channel asks first
// when taking a message costs something, such as fetching its files.
func (e *Engine) Allowed(m Message) bool { return e.cfg.Access.Allowed(m) }

// IsAdmin reports whether user is an admin: named in Admins, never through
// "*" (configs refuses it; this keeps a hand-built Access as safe).
func (a Access) IsAdmin(user string) bool {
	return user != "" && user != "*" && slices.Contains(a.Admins, user)
}

// approvers are the userids who decide requests to leave the sandbox: the
// ones access.approvers names, or the admins when it names none.
func (a Access) approvers() []string {
	var named []string
	for _, u := range a.Approvers {
		if u != ApproverRequester {
			named = append(named, u)
		}
	}
	if len(named) == 0 {
		return a.Admins
	}
	return named
}

// IsApprover reports whether user decides requests to leave the sandbox,
// whoever asked.
func (a Access) IsApprover(user string) bool {
	return user != "" && user != "*" && slices.Contains(a.approvers(), user)
}

// requesterDecides reports whether the user who asked may decide too.
func (a Access) requesterDecides() bool { return slices.Contains(a.Approvers, ApproverRequester) }

// mayDecide reports whether user may decide a request requester asked:
// once (always false) or for the rest of the session (always true), which
// is an approver's alone.
func (a Access) mayDecide(user, requester string, always bool) bool {
	if a.IsApprover(user) {
		return true
	}
	return !always && user != "" && user == requester && a.requesterDecides()
}

// Closed reports whether nobody at all may use the bot.
func (a Access) Closed() bool {
	return len(a.AllowUsers) == 0 && len(a.AllowChats) == 0 && len(a.Admins) == 0
}

func listed(list []string, id string) bool {
	return id != "" && (slices.Contains(list, id) || slices.Contains(list, "*"))
}
