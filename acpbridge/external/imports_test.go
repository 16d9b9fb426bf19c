package external

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// external is the ACP client: the agent domain, ACP and the stdlib-only
// scanning and pacing helpers under acpbridge/internal, procgroup and childenv, never the server or the bot.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk", "github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/acpbridge/internal/...",
		"github.com/wecodex/wecodex/procgroup", "github.com/wecodex/wecodex/childenv")
}
