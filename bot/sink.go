package bot

import (
	acp "github.com/coder/acp-go-sdk"

	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/cards"
)

// cardSink is the acpbridge.Sink of a running turn: it hands each update to
// the turn's card publisher, which folds it in under a short lock and renders
// frames on its own goroutine, so the agent's read loop never waits on Redis.
type cardSink struct {
	pub *cards.Publisher[Snapshot]
}

// Update folds one ACP update into the card.
func (s cardSink) Update(u acp.SessionUpdate) { s.pub.Apply(u) }

// Notice adds a progress line that is not agent output.
func (s cardSink) Notice(n acpbridge.Notice) { s.pub.Notice(string(n.Level), n.Text) }
