package cli

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// cli is what the commands share and the lean codex-acp binary links: the
// configs and the standard library, nothing of the bot, a channel or the
// store.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/configs")
}
