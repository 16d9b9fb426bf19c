// Package demo runs `wecodex serve` with Codex pointed at a bundled scripted
// model (internal/scriptedmodel), so anyone can watch a whole turn in the
// playground — commentary, a real command, the answer — with no account and
// no network. `make demo` runs it; the browser tests start the same setup.
package demo

import (
	"strings"
	"time"

	"github.com/wecodex/wecodex/internal/scriptedmodel"
)

// What the demo model says. Tests assert these exact texts.
const (
	// Commentary opens every ordinary turn; Codex streams it with the
	// commentary phase, so it belongs in the card's progress section.
	Commentary = "Let me look at this conversation's workspace first."
	// Command is what the model asks Codex to run, for real, in the
	// conversation's workspace.
	Command = "ls -la"
	// Answer is the final answer after the command ran.
	Answer = "Done: I ran `ls -la` in this conversation's workspace.\n\n" +
		"This answer comes from the **wecodex demo model**: the commentary above went to the folded progress section, " +
		"the command really ran under Codex's sandbox, and this text is the card's body.\n\n" +
		"Send a message containing `long` to watch a slow answer you can stop with `/stop`."

	// LongWord in a prompt selects the long turn.
	LongWord = "long"
	// LongCommentary opens a long turn.
	LongCommentary = "This will take a while; send /stop to interrupt it."
	// LongDelay is the pause before each word of the long answer.
	LongDelay = 150 * time.Millisecond
)

// longAnswer is streamed word by word with LongDelay between words: about
// 45 s in all, long enough to read it growing and to stop it.
var longAnswer = strings.TrimSpace(strings.Repeat("Counting sheep slowly so there is time to press Stop. ", 30))

// LongAnswer is the full text of the long turn's answer.
func LongAnswer() string { return longAnswer }

// Script answers any prompt. An ordinary turn is two model requests: the
// first gets the commentary and an exec_command call; the second, which
// carries the command's output, gets the answer. A prompt containing LongWord
// gets its commentary and then a slow answer.
//
// It decides from the request alone (the input ends with the command's
// output or not), so it serves any number of conversations and turns.
func Script() scriptedmodel.Script {
	return scriptedmodel.ScriptFunc(func(req *scriptedmodel.Request) (scriptedmodel.Response, error) {
		afterCommand := len(req.InputTypes) > 0 && req.InputTypes[len(req.InputTypes)-1] == "function_call_output"
		switch {
		case strings.Contains(strings.ToLower(req.UserText), LongWord):
			return scriptedmodel.Reply(
				scriptedmodel.Message(scriptedmodel.PhaseCommentary, LongCommentary),
				scriptedmodel.Message(scriptedmodel.PhaseFinalAnswer, longAnswer),
			).WithDelay(LongDelay), nil
		case afterCommand:
			return scriptedmodel.Reply(scriptedmodel.Message(scriptedmodel.PhaseFinalAnswer, Answer)), nil
		default:
			return scriptedmodel.Reply(
				scriptedmodel.Message(scriptedmodel.PhaseCommentary, Commentary),
				scriptedmodel.ExecCommand("demo_ls", Command),
			), nil
		}
	})
}
