package scriptedmodel

import (
	"encoding/json"
	"strings"
	"time"
)

// Phases Codex attaches to assistant messages. Codex shows commentary as
// progress and final_answer as the answer; an empty phase is sent as no phase.
const (
	PhaseCommentary  = "commentary"
	PhaseFinalAnswer = "final_answer"
)

type itemKind int

const (
	kindMessage itemKind = iota + 1
	kindReasoning
	kindFunctionCall
)

// Item is one output item of a model response: an assistant message, a
// reasoning summary or a function call. Build it with [Message],
// [MessageDeltas], [Reasoning], [ReasoningDeltas], [ExecCommand],
// [EscalatedExecCommand], [FunctionCall] or [NamespacedFunctionCall].
type Item struct {
	kind   itemKind
	phase  string   // message only; "" = omitted
	deltas []string // message text or reasoning summary, as streamed
	callID string   // function call only
	name   string
	ns     string // function call only: the tool's namespace ("" for none)
	args   string // function call arguments, a JSON document
}

// Message is an assistant message with the given phase ("" for none) whose
// text is streamed word by word (each delta is a word with its leading space).
func Message(phase, text string) Item {
	return Item{kind: kindMessage, phase: phase, deltas: SplitWords(text)}
}

// MessageDeltas is an assistant message streamed as exactly these deltas; its
// full text is their concatenation.
func MessageDeltas(phase string, deltas ...string) Item {
	return Item{kind: kindMessage, phase: phase, deltas: deltas}
}

// Reasoning is a reasoning item whose one summary part is streamed word by word.
func Reasoning(summary string) Item {
	return Item{kind: kindReasoning, deltas: SplitWords(summary)}
}

// ReasoningDeltas is a reasoning item whose summary is streamed as exactly these
// deltas.
func ReasoningDeltas(deltas ...string) Item {
	return Item{kind: kindReasoning, deltas: deltas}
}

// ExecCommand is an `exec_command` function call that makes Codex run cmd in
// the thread's working directory under its sandbox and approval policy.
func ExecCommand(callID, cmd string) Item {
	return FunctionCall(callID, "exec_command", mustJSON(map[string]string{"cmd": cmd}))
}

// EscalatedExecCommand is an `exec_command` call that asks to run outside the
// sandbox, so Codex (with approval policy on-request) asks the client for
// approval, showing justification, before running cmd.
func EscalatedExecCommand(callID, cmd, justification string) Item {
	return FunctionCall(callID, "exec_command", mustJSON(map[string]string{
		"cmd":                 cmd,
		"sandbox_permissions": "require_escalated",
		"justification":       justification,
	}))
}

// FunctionCall is a call of any Codex tool; arguments is the JSON document the
// tool receives.
func FunctionCall(callID, name, arguments string) Item {
	return Item{kind: kindFunctionCall, callID: callID, name: name, args: arguments}
}

// NamespacedFunctionCall is a call of tool name in namespace ns (a tool
// Codex offers inside a {"type":"namespace"} tool, such as image_gen.imagegen).
func NamespacedFunctionCall(callID, ns, name, arguments string) Item {
	return Item{kind: kindFunctionCall, callID: callID, ns: ns, name: name, args: arguments}
}

// Text is the full text of a message or reasoning summary ("" for a call).
func (it Item) Text() string { return strings.Join(it.deltas, "") }

// Usage is the token usage reported in `response.completed`.
type Usage struct {
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	ReasoningTokens   int64
}

// Response is one scripted model reply: its output items, in order, and how to
// stream them. The zero value of every option streams as fast as possible.
type Response struct {
	Items []Item
	// Usage is reported in response.completed; zero reports a small fixed usage.
	Usage Usage
	// DeltaDelay is slept before each text delta (message and reasoning), to
	// make a stream last long enough for a test to act on it.
	DeltaDelay time.Duration
	// Hold, when set, pauses the stream once HoldAfter deltas (counted over the
	// whole response) have been sent, until the gate is released or the request
	// or server ends.
	Hold      *Gate
	HoldAfter int
	// Fail, when not empty, ends the stream with `response.failed` carrying this
	// message instead of `response.completed`.
	Fail string
}

// Reply is a Response with these items and default streaming.
func Reply(items ...Item) Response { return Response{Items: items} }

// WithDelay returns r with a pause of d before each text delta.
func (r Response) WithDelay(d time.Duration) Response { r.DeltaDelay = d; return r }

// WithHold returns r paused at g after afterDeltas text deltas.
func (r Response) WithHold(afterDeltas int, g *Gate) Response {
	r.Hold, r.HoldAfter = g, afterDeltas
	return r
}

// WithUsage returns r reporting u as its token usage.
func (r Response) WithUsage(u Usage) Response { r.Usage = u; return r }

// SplitWords splits text into deltas the way a model streams tokens: each
// delta is a word with the whitespace before it, so their concatenation is
// text again.
func SplitWords(text string) []string {
	var out []string
	start := 0
	inSpace := true
	for i, r := range text {
		isSpace := r == ' ' || r == '\n' || r == '\t'
		if !isSpace && inSpace && i > start {
			// A word begins: cut before its leading whitespace run only if
			// something but whitespace came before it.
			if strings.TrimLeft(text[start:i], " \n\t") != "" {
				j := i
				for j > start && (text[j-1] == ' ' || text[j-1] == '\n' || text[j-1] == '\t') {
					j--
				}
				out = append(out, text[start:j])
				start = j
			}
		}
		inSpace = isSpace
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only maps of strings reach here; they always marshal.
		panic("scriptedmodel: marshal arguments: " + err.Error())
	}
	return string(b)
}
