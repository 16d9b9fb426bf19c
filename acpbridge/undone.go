package acpbridge

import "errors"

// Undone is what an agent's undo reverted: the session's last turn, gone
// from the history the model sees next, and the workspace files that turn
// changed, put back as they were before it.
type Undone struct {
	// TurnID is the agent's id of the undone turn.
	TurnID string
	// Prompt is the text the undone turn was asked ("" when it had none,
	// a review or a compaction).
	Prompt string
	// Files are the files restored, relative to the session's working
	// directory, sorted; Removed are those the turn had created, deleted.
	Files, Removed []string
	// FilesKept is set when the agent has no record of the workspace from
	// before the turn (another process ran it): only the history was
	// undone, and the files stay as they are.
	FilesKept bool
}

// ErrNothingToUndo is an agent's undo error when the session has no turn.
var ErrNothingToUndo = errors.New("the session has no turn to undo")
