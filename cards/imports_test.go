package cards

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// cards is the card model and its renderers: ACP's types and the markdown parser, nothing of the bot or the platforms.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/coder/acp-go-sdk", "github.com/yuin/goldmark/...")
}
