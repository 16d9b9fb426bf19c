package configs

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// configs reads the file and names what each key accepts: it imports viper
// and its decoders, never the engine, the cards, a channel or the store. The
// values it shares with them are checked against theirs in cmd/wecodex.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/spf13/viper", "github.com/go-viper/mapstructure/v2", "go.yaml.in/yaml/v3")
}
