package codex

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// codex is the app-server client: the agent domain, ACP's types and the
// stdlib-only scanning, pacing, process-group and child-environment helpers; never the store
// (the phase store is passed in), the server or the bot.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk", "github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/acpbridge/internal/...",
		"github.com/wecodex/wecodex/procgroup", "github.com/wecodex/wecodex/childenv")
}
