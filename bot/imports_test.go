package bot

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// bot is the platform-neutral engine: the agent domain and the cards, never a channel (bot/wecom...), the store or a test double.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk", "github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/cards")
}
