package wecom

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// bot/wecom is what every WeCom channel shares: the engine, the cards and
// ACP's types the cards speak, never a channel, the store or a test double.
// Two imports go beyond DESIGN's table and are kept here by name, so no
// third slips in: silenceper's util for the message signature and AES
// sealing (crypto.go), and acpbridge.Extension for a fallback file name.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/cards", "github.com/coder/acp-go-sdk",
		"github.com/silenceper/wechat/v2/util", "github.com/wecodex/wecodex/acpbridge")
}
