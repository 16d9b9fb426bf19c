package serve

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// serve is the ACP server: the agent domain and ACP, never the client or the bot.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk", "github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/acpbridge/internal/...")
}
