package external

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// external is the ACP client: the agent domain, ACP and the stdlib-only
// scanning, pacing and process-group helpers, never the server or the bot.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk", "github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/acpbridge/internal/...",
		"github.com/wecodex/wecodex/internal/jsonscan", "github.com/wecodex/wecodex/internal/readpace",
		"github.com/wecodex/wecodex/internal/procgroup")
}
