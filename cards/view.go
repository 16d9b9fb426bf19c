package cards

import (
	"slices"

	acp "github.com/coder/acp-go-sdk"
)

// ItemKind is what a progress item is.
type ItemKind int

const (
	// ItemThought is thought or commentary text, grouped by message id.
	ItemThought ItemKind = iota
	// ItemTool is a tool call, updated in place by its id.
	ItemTool
	// ItemPlan is the current plan (a card has at most one).
	ItemPlan
	// ItemNotice is a line that is not agent output: a warning, an error, a
	// policy decision.
	ItemNotice
)

// ProgressItem is a read-only view of one item of a card's progress section,
// for a renderer that lives outside this package (a platform's card, the
// playground's HTML). Only the fields of its Kind are set.
type ProgressItem struct {
	Kind ItemKind
	// Text is a thought's or a notice's text, as it arrived.
	Text string
	// Level is a notice's level ("info", "warning" or "error").
	Level string
	// ToolKind, Title and Status describe a tool call.
	ToolKind acp.ToolKind
	Title    string
	Status   acp.ToolCallStatus
	// Plan is the plan's entries, each on one line.
	Plan []acp.PlanEntry
	// Markdown is the item as the stream shows it: one markdown block, ""
	// when there is nothing worth showing.
	Markdown string
}

// Progress returns the progress section, oldest item first. The views are
// copies: changing them does not change the card.
func (c *Card) Progress() []ProgressItem {
	out := make([]ProgressItem, len(c.progress))
	for i, it := range c.progress {
		out[i] = it.view()
	}
	return out
}

func (it *progressItem) view() ProgressItem {
	v := ProgressItem{Kind: it.kind, Markdown: it.markdown()}
	switch it.kind {
	case ItemThought:
		v.Text = it.text.String()
	case ItemNotice:
		v.Text, v.Level = it.text.String(), it.level
	case ItemTool:
		v.ToolKind, v.Title, v.Status = it.toolKind, it.title, it.status
	case ItemPlan:
		v.Plan = slices.Clone(it.entries)
	}
	return v
}

// EmptyAnswer is what a finished turn without answer text shows in place of
// one: its last commentary, marked as such and kept within max bytes, or a
// plain note. Stream and Markdown show it by themselves; a renderer outside
// this package uses it to say the same.
func (c *Card) EmptyAnswer(max int) string { return c.emptyAnswer(max) }
