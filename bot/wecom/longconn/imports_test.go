package longconn

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// The long-connection channel uses the WeCom layer, the engine, the cards
// and coder/websocket; never the store, another channel or a test double.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/bot/wecom", "github.com/wecodex/wecodex/cards",
		"github.com/coder/websocket")
}
