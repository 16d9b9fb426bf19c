package metrics

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// metrics is the bot.Observer on Prometheus. go-redis goes beyond DESIGN's
// table: RedisHook counts failed commands as a go-redis hook; it is named
// here so nothing else of the store's side comes in.
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/wecodex/wecodex/bot", "github.com/prometheus/client_golang/...", "github.com/redis/go-redis/v9")
}
