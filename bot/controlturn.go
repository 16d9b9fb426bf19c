package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
)

// control runs the session control q was queued for (controlcmd.go) on
// the conversation's session, as its turn: a review and a compaction
// stream into the card as any turn does; an undo's card says what it
// undid. What wecodex itself says is the card's answer: it is what the
// command was asked for.
func (r *turnRunner) control(ctx context.Context, log *slog.Logger, q queued, sid acp.SessionId, sink acpbridge.Sink) (acp.StopReason, error) {
	log.Info("session control", "action", q.Action, "session", sid)
	switch q.Action {
	case actionReview:
		if rv, ok := r.agent.(Reviewer); ok {
			return rv.Review(ctx, sid, commandArgs(q.Text), sink)
		}
	case actionCompact:
		if c, ok := r.agent.(Compacter); ok {
			stop, err := c.Compact(ctx, sid, sink)
			if err == nil && stop == acp.StopReasonEndTurn {
				say(sink, textCompacted)
			}
			return stop, err
		}
	case actionUndo:
		if u, ok := r.agent.(Undoer); ok {
			return r.undo(ctx, log, u, sid, sink)
		}
	}
	// Queued by a replica whose agent could; this one's cannot.
	return "", fmt.Errorf("this replica's agent cannot %s", q.Action)
}

func (r *turnRunner) undo(ctx context.Context, log *slog.Logger, u Undoer, sid acp.SessionId, sink acpbridge.Sink) (acp.StopReason, error) {
	done, err := u.Undo(ctx, sid)
	if errors.Is(err, acpbridge.ErrNothingToUndo) {
		say(sink, textNothingToUndo)
		return acp.StopReasonEndTurn, nil
	}
	if err != nil {
		return "", err
	}
	log.Info("turn undone", "agent_turn", done.TurnID, "files", len(done.Files), "removed", len(done.Removed), "files_kept", done.FilesKept)
	say(sink, undoneText(done))
	return acp.StopReasonEndTurn, nil
}

// say puts wecodex's own answer on the card.
func say(sink acpbridge.Sink, text string) {
	sink.Update(acpbridge.AgentText(acpbridge.PhaseFinalAnswer, "wecodex", text))
}

// undoneText says exactly what an undo undid: which turn, which files.
func undoneText(u acpbridge.Undone) string {
	var b strings.Builder
	if u.Prompt != "" {
		fmt.Fprintf(&b, "↩️ Undid the last turn, which was asked: %s\n", quoteLine(u.Prompt))
	} else {
		b.WriteString("↩️ Undid the last turn.\n")
	}
	b.WriteString("Codex no longer remembers it.\n")
	switch {
	case u.FilesKept:
		b.WriteString("\nIts files are left as they are: no snapshot of the workspace from before it is here (a server on another disk ran it).")
	case len(u.Files) == 0 && len(u.Removed) == 0:
		b.WriteString("\nIt had changed no file.")
	default:
		if len(u.Files) > 0 {
			b.WriteString("\nPut back as they were before it:\n")
			writeFiles(&b, u.Files)
		}
		if len(u.Removed) > 0 {
			b.WriteString("\nRemoved, as it had created them:\n")
			writeFiles(&b, u.Removed)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func writeFiles(b *strings.Builder, files []string) {
	for _, f := range files {
		b.WriteString("- `" + f + "`\n")
	}
}

// quoteLine is text on one line, cut to 200 runes, in quotes.
func quoteLine(text string) string {
	line := strings.Join(strings.Fields(text), " ")
	if r := []rune(line); len(r) > 200 {
		line = string(r[:200]) + "…"
	}
	return "“" + line + "”"
}

const (
	textCompacted     = "🗜 Compacted: Codex carries this conversation on from a summary of it."
	textNothingToUndo = "Nothing to undo: this conversation's session has no turn yet."
)
