package configs

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// configs reads the file and names what each key accepts. The values and
// defaults whose meaning lives in the engine, the agent side, the cards or a
// channel are those packages' constants, so configs imports them (outside
// in, as only cmd/wecodex imports configs); it never imports the store, the
// wiring or a test double.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/spf13/viper", "github.com/go-viper/mapstructure/v2", "go.yaml.in/yaml/v3",
		"github.com/wecodex/wecodex/acpbridge", "github.com/wecodex/wecodex/bot", "github.com/wecodex/wecodex/bot/wecom", "github.com/wecodex/wecodex/bot/wecom/webhook",
		"github.com/wecodex/wecodex/cards")
}
