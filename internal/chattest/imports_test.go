package chattest

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// A chat channel needs bot and cards, and nothing of WeCom's.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/cards")
}
