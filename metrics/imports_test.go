package metrics

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// metrics is the bot.Observer on Prometheus; the store counts its own
// failed commands and hands metrics their names.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/prometheus/client_golang/...")
}
