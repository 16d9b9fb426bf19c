package schedule

import (
	"testing"

	"github.com/wecodex/wecodex/internal/housetest"
)

// schedule knows only its cron parser: the store, the engine and the
// metrics reach it through its own interfaces (Claims, Starter, Observer).
func TestImportDirection(t *testing.T) {
	housetest.Imports(t, "github.com/robfig/cron/v3")
}
