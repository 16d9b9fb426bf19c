package audit

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// audit consumes the engine's events (bot) and the agent's token counts
// (acpbridge); the store meets its interfaces without being imported.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/acpbridge", "github.com/coder/acp-go-sdk", "github.com/wecodex/wecodex/cards")
}
