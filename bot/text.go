package bot

import (
	"fmt"
	"time"

	"github.com/wecodex/wecodex/cards"
)

// What the engine itself says. Kept together so the wording is consistent.
const (
	textThinking = cards.ThinkingLine
	textRefused  = "Sorry, you are not allowed to use this bot. Ask an admin to add you to the access list."
	// textExternal refuses an external contact (access.allow_external).
	textExternal  = "Sorry, this bot takes messages only from members of its own company."
	textEmpty     = "Send me a message to start, or /help for commands."
	textQueueFull = "Too many messages are waiting in this conversation (%d). Send it again when the current ones are done, or /stop the running one."
	// textHelpTail ends /help, after the commands (commandtable.go).
	textHelpTail     = "Anything else is sent to the agent. Messages sent while it works wait their turn."
	textNew          = "OK — the next message starts a fresh session."
	textStopped      = "OK — asked the running turn to stop."
	textNothingToRun = "Nothing is running in this conversation."
	// textServerLost is the failure on the card of a turn whose server
	// stopped (crashed, killed, lost) before finishing it.
	textServerLost = "the server running this turn stopped before it finished. Send the message again."
	// textServerLostRerun is that failure for a turn that runs once more
	// (a schedule's missed: once; a message, agent.rerun_orphaned: once),
	// and the notice on the card of that second run.
	textServerLostRerun = "the server running this turn stopped before it finished. It runs once more."
	// textLegacyQueued is the failure on the card of a message that waited
	// across the upgrade that namespaced conversation keys.
	textLegacyQueued = "the bot was upgraded while this message waited. Send the message again."
)

// textQueued is the reply of a message waiting behind others; cards owns
// the words, so a reader of frames (the playground) knows the position.
func textQueued(position int) string { return cards.QueuedLine(position) }

// textStatus answers /status: whether a turn runs, how many wait, whether a
// session exists and what /name called it. It names no replica and no
// session id: those are the server's insides, which the log has (the user
// needs neither to act).
func textStatus(running bool, waiting int, hasSession bool, name string) string {
	turn := "idle"
	if running {
		turn = "running"
	}
	session := "none yet (the next message starts one)"
	if hasSession {
		session = "started (/new starts a fresh one)"
	}
	if hasSession && name != "" {
		session = "“" + name + "” (/new starts a fresh one)"
	}
	return fmt.Sprintf("**Status**\n- turn: %s\n- waiting: %d\n- session: %s", turn, waiting, session)
}

// textWaitingForSlot is the card of a turn waiting for one of the
// replica's turn slots (agent.max_concurrent_turns).
func textWaitingForSlot(position, limit int) string {
	return fmt.Sprintf("⏳ Waiting for a free turn (position %d): this server runs %d turns at once.", position, limit)
}

// textStoppedBeforeStart ends the card of a message stopped while it waited
// for a turn slot.
const textStoppedBeforeStart = "⏹ Stopped before it started."

func textTimeout(d time.Duration) string {
	return fmt.Sprintf("timed out after %s (agent.turn_timeout)", d)
}

// TextNoMore answers /more when nothing of an answer is left unread.
const TextNoMore = "There is no more to show: the last answer was shown in full."
