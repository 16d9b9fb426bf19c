package bot

import (
	"context"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

// cardSink is the card of a running turn as an acpbridge.Sink: it hands
// each update to the turn's card publisher, which folds it in under a short
// lock and renders frames on its own goroutine, so the agent's read loop
// never waits on Redis. The card alone asks no one: the turn's permissions
// wrap it (see permissions).
type cardSink struct {
	pub *cards.Publisher[frame]
	// agentSpoke is set once the agent's first update the card shows is
	// in it, so the first frame rendered after it is timed as the first
	// progress shown (a frame rendered between the two is not: late by one
	// frame at worst, never early).
	agentSpoke *atomic.Bool
	// audit is the turn's audit, for the approvals asked through it.
	audit *turnAudit
	// images are the pictures the agent produced or looked at
	// (acpbridge.ImageItem), sent back as linked ones are.
	images *producedImages
}

// frame is a channel's snapshot, as what shows it, and whether the agent
// had spoken when it was rendered.
type frame struct {
	show  func(ctx context.Context, final bool)
	spoke bool
}

// Update folds one ACP update into the card. The first one the card shows
// is published at once: the turn's first frame ("running") went out when
// the turn started, and the throttle would hold Codex's first words back
// until a whole update interval after it, which is most of what a user
// waited for at load (issue 28).
func (s cardSink) Update(u acp.SessionUpdate) {
	if p, ok := acpbridge.ImagePath(u); ok && s.images != nil {
		s.images.add(p)
	}
	if p, ok := acpbridge.GeneratedImagePath(u); ok && s.images != nil {
		s.images.addGenerated(p)
	}
	s.pub.Apply(u)
	if shown(u) && !s.agentSpoke.Swap(true) {
		s.pub.Refresh()
	}
}

// shown reports whether a card shows u (cards.Card.Apply): mode, command,
// config, session info and usage updates change nothing on it.
func shown(u acp.SessionUpdate) bool {
	return u.AgentMessageChunk != nil || u.AgentThoughtChunk != nil || u.ToolCall != nil ||
		u.ToolCallUpdate != nil || u.Plan != nil
}

// Notice adds a progress line that is not agent output.
func (s cardSink) Notice(n acpbridge.Notice) { s.pub.Notice(string(n.Level), n.Text) }

// RequestPermission answers Cancelled: nobody is asked through the card
// itself.
func (cardSink) RequestPermission(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return acpbridge.Cancelled()
}
