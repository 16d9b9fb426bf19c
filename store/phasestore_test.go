package store_test

import (
	"github.com/wecodex/wecodex/acpbridge"
	"github.com/wecodex/wecodex/store"
)

// *Store is the PhaseStore the Codex bridge uses, matched structurally.
var _ acpbridge.PhaseStore = (*store.Store)(nil)
