package acpbridge

import (
	"context"
	"errors"

	acp "github.com/coder/acp-go-sdk"
)

// ServedAgentName is the agentInfo.name wecodex announces, serving ACP and
// as an ACP client alike.
const ServedAgentName = "wecodex"

// ErrLoadUnsupported is returned by LoadSession when the agent cannot load
// sessions (an ACP agent that does not advertise loadSession).
var ErrLoadUnsupported = errors.New("the agent cannot load sessions")

// Agent is what the bot drives: one implementation wraps Codex's app-server in
// process, another speaks ACP to an external agent over stdio.
type Agent interface {
	// NewSession starts a fresh session working in cwd.
	NewSession(ctx context.Context, cwd string) (acp.SessionId, error)
	// LoadSession reopens a session created earlier (by this process or an
	// earlier one), replaying its history into sink. It returns ErrLoadUnsupported
	// when the agent cannot load sessions.
	LoadSession(ctx context.Context, id acp.SessionId, cwd string, sink Sink) error
	// Prompt runs one turn and returns when it ends. Updates stream into sink
	// while it runs. A turn that fails returns an error carrying the agent's
	// message; a cancelled turn returns acp.StopReasonCancelled and no error.
	Prompt(ctx context.Context, id acp.SessionId, p Prompt, sink Sink) (acp.StopReason, error)
	// Cancel asks the running turn of the session to stop; Prompt then returns.
	Cancel(ctx context.Context, id acp.SessionId) error
	// Close stops the agent and every process it owns.
	Close() error
}

// Prompt is what the user sends for one turn: the text, and the pictures
// that came with it, each already saved as a file the agent may read.
type Prompt struct {
	Text   string
	Images []Image
	// Model and Effort, when set, are the conversation's own choice (/model,
	// /effort): the agent runs this turn, and the session's later ones, with
	// them. Empty leaves the session's own.
	Model, Effort string
	// Mode, when set, is the session's mode for this turn and its later
	// ones; empty leaves the session's own (its agent's configuration
	// before any mode was set).
	Mode Mode
}

// TextPrompt is a prompt of text alone.
func TextPrompt(text string) Prompt { return Prompt{Text: text} }

// Image is a picture saved on the agent's machine.
type Image struct {
	// Path is the file's absolute path, inside the conversation's workspace.
	Path string
	// MIME is its media type (image/png, image/jpeg, image/gif, image/webp).
	MIME string
}

// Sink is the client side of one turn: it receives what the turn produces
// and decides what the agent asks, as an ACP client does for its session.
// Policies that decide without asking anyone are Sinks wrapping a Sink (see
// Policy.Wrap).
type Sink interface {
	// Update delivers one ACP session update, in the order the agent sent
	// it. It must not block: it is called from the goroutine that reads the
	// agent's protocol stream.
	Update(acp.SessionUpdate)
	// Notice delivers something the user should see that is not part of the
	// answer: a warning, an error, a policy decision. It must not block.
	Notice(Notice)
	// RequestPermission decides a permission request the agent raised
	// during the turn. It is called on its own goroutine and may block
	// until someone answers; ctx ends when the turn does, and the answer
	// then no longer matters. A sink that cannot decide answers Cancelled.
	RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) acp.RequestPermissionResponse
}

// NoticeLevel says how a Notice should be shown.
type NoticeLevel string

const (
	NoticeInfo    NoticeLevel = "info"
	NoticeWarning NoticeLevel = "warning"
	NoticeError   NoticeLevel = "error"
)

// Notice is a line for the card's progress section, never for its body.
type Notice struct {
	Level NoticeLevel
	Text  string
}
