package retention

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// retention acts on what the Codex agent and the store hold, and nothing
// of the chat: the engine never depends on it, cmd/wecodex wires it.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/acpbridge/...", "github.com/wecodex/wecodex/store", "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/audit")
}
