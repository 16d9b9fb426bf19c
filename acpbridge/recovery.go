package acpbridge

// ContinuationPrompt starts the one turn that carries on a turn the agent
// process's hang or death cut off, after its session was resumed in a new
// process. It says what Codex's own recovery prompt says (codex app-server's
// daemon recovery, "The server restarted and interrupted the previous
// turn…"): the conversation is saved, the work is unfinished, and some of it
// may be done already. The user's prompt is never sent again: the turn may
// have run commands.
const ContinuationPrompt = "Codex restarted and interrupted your previous turn. " +
	"Continue the unfinished work from the saved conversation. " +
	"Check the current state before repeating actions that may already have completed."

// What a card's progress says when its turn carries on in a new agent
// process, by what happened to the old one.
const (
	NoticeContinuedHung    = "Codex stopped answering and was restarted; the work continues."
	NoticeContinuedCrashed = "Codex stopped unexpectedly and was restarted; the work continues."
)

// ContinuedNotice is the progress line of a turn that carries on after its
// agent process hung (or else died).
func ContinuedNotice(hung bool) Notice {
	if hung {
		return Notice{Level: NoticeWarning, Text: NoticeContinuedHung}
	}
	return Notice{Level: NoticeWarning, Text: NoticeContinuedCrashed}
}
