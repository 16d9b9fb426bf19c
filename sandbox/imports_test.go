package sandbox

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// sandbox reads the config (configs), the layout of the conversations'
// workspaces (bot) and projects' directories (projects), and makes what the
// Codex bridge sends (acpbridge/codex); it reads CODEX_HOME's config.toml
// with go-toml. Never the store, a channel or the engine's running parts.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/configs", "github.com/wecodex/wecodex/bot",
		"github.com/wecodex/wecodex/projects", "github.com/wecodex/wecodex/acpbridge/codex", "github.com/pelletier/go-toml/v2")
}
